package io.github.distributedlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.LockInspector;
import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Reads any lock in Redis, whoever holds it, and force-releases it: diagnostics for operators (the Actuator
 * endpoint), not for application code. It knows the layout of the lock hashes (see {@code reentrant_common.lua},
 * {@code rw_common.lua} and {@code sem_common.lua}). Thread-safe.
 */
public final class RedisLockInspector implements LockInspector {

	/** Returns the TTL, the server clock and the fields of a lock; see the script. */
	private static final RedisScript<?> INSPECT = script("inspect.lua");

	/** Deletes a lock's hash and wakes its waiters; see the script. */
	private static final RedisScript<?> FORCE_RELEASE = RedisScript.of(LockScripts.text("notify.lua", "force_release.lua"),
			List.class);

	private final ScriptExecutor scripts;

	private final RedisLockClient client;

	/**
	 * Creates an inspector of the locks of a client's key prefix.
	 * @param connectionFactory the Redis connections
	 * @param client the client whose key prefix and release channel to use
	 */
	public RedisLockInspector(RedisConnectionFactory connectionFactory, RedisLockClient client) {
		this.scripts = new ScriptExecutor(Objects.requireNonNull(connectionFactory, "connectionFactory must not be null"));
		this.client = Objects.requireNonNull(client, "client must not be null");
	}

	/**
	 * Reads a lock in Redis, in one round trip that changes nothing. Holders and waiters whose deadline has
	 * passed (and that the next lock operation would delete) are left out.
	 * @param key the lock key, without the key prefix
	 * @return the lock's state; type {@code "none"} when there is no key
	 * @throws DistributedLockException if Redis could not be reached
	 */
	@Override
	public RedisLockState inspect(String key) {
		Objects.requireNonNull(key, "key must not be null");
		String redisKey = this.client.redisKey(key);
		List<?> reply = this.scripts.runList(INSPECT, redisKey, "inspect", key);
		long ttl = (Long) reply.get(0);
		long now = (Long) reply.get(1);
		if (ttl == -2) {
			return new RedisLockState(key, redisKey, "none", false, 0, List.of(), 0);
		}
		Map<String, String> fields = new LinkedHashMap<>();
		for (int i = 2; i + 1 < reply.size(); i += 2) {
			fields.put(text(reply.get(i)), text(reply.get(i + 1)));
		}
		if (fields.isEmpty()) {
			return new RedisLockState(key, redisKey, "foreign", true, ttl, List.of(), 0);
		}
		if (fields.containsKey("~p")) {
			return semaphore(key, redisKey, ttl, now, fields);
		}
		return isReadWrite(fields) ? readWrite(key, redisKey, ttl, now, fields)
				: reentrant(key, redisKey, ttl, now, fields);
	}

	/**
	 * Force-releases a lock whoever holds it, and wakes its waiters. Its holder learns it lost the lock (from
	 * its watchdog, or at its release, which throws {@code LockLostException}); until then it may still run
	 * the code the lock guards, so this is for a lock whose holder is known to be gone or stuck.
	 * @param key the lock key, without the key prefix
	 * @return {@code true} if a lock was released, {@code false} if there was none
	 * @throws DistributedLockException if Redis could not be reached, or the key is not a lock of this library
	 * (a key of another Redis type, left untouched)
	 */
	@Override
	public boolean forceRelease(String key) {
		Objects.requireNonNull(key, "key must not be null");
		String redisKey = this.client.redisKey(key);
		List<?> reply = this.scripts.runList(FORCE_RELEASE, redisKey, "force-release", key,
				this.client.channels().of(redisKey));
		long result = (Long) reply.get(0);
		if (result < 0) {
			throw new DistributedLockException("Redis key '" + redisKey + "' is not a lock of this library; left untouched");
		}
		return result == 1;
	}

	private static boolean isReadWrite(Map<String, String> fields) {
		for (String field : fields.keySet()) {
			if (field.equals("w") || field.equals("wc") || field.equals("~w") || field.startsWith("r:")
					|| field.startsWith("t:") || field.startsWith("ww:") || field.startsWith("rw:")
					|| field.startsWith("ra:")) {
				return true;
			}
		}
		return false;
	}

	/** Owners are the fields without a prefix; {@code q:<owner>} = {@code <since>:<until>:...} a waiter. */
	private static RedisLockState reentrant(String key, String redisKey, long ttl, long now,
			Map<String, String> fields) {
		List<String> owners = new ArrayList<>();
		int waiting = 0;
		for (Map.Entry<String, String> field : fields.entrySet()) {
			String name = field.getKey();
			if (name.startsWith("q:")) {
				String[] parts = field.getValue().split(":");
				if (parts.length > 1 && Long.parseLong(parts[1]) >= now) {
					waiting++;
				}
			}
			else if (!name.startsWith("~")) {
				owners.add(name);
			}
		}
		boolean held = !owners.isEmpty() || fields.containsKey("~k");
		return new RedisLockState(key, redisKey, "reentrant", held, ttl, owners, waiting);
	}

	/**
	 * See {@code sem_common.lua}: {@code h:<owner>} = {@code <deadline>:<holds>} a holder until its deadline
	 * ({@code h:~<owner>} a placeholder until a minimum hold ends), {@code q:<owner>} = {@code <since>:<until>:...}
	 * a waiter.
	 */
	private static RedisLockState semaphore(String key, String redisKey, long ttl, long now,
			Map<String, String> fields) {
		List<String> owners = new ArrayList<>();
		List<RedisLockState.Holder> holders = new ArrayList<>();
		boolean held = false;
		int waiting = 0;
		for (Map.Entry<String, String> field : fields.entrySet()) {
			String name = field.getKey();
			if (name.startsWith("h:")) {
				long deadline = deadline(field.getValue());
				if (deadline > now) {
					held = true;
					String owner = name.substring(2);
					if (!owner.startsWith("~")) {
						owners.add(owner);
						holders.add(new RedisLockState.Holder(owner, deadline - now));
					}
				}
			}
			else if (name.startsWith("q:")) {
				String[] parts = field.getValue().split(":");
				if (parts.length > 1 && Long.parseLong(parts[1]) >= now) {
					waiting++;
				}
			}
		}
		return new RedisLockState(key, redisKey, "semaphore", held, ttl, owners, waiting, holders,
				Integer.parseInt(fields.get("~p")));
	}

	/** See {@code rw_common.lua}: a holder counts until its deadline; {@code ~...} ids are placeholders. */
	private static RedisLockState readWrite(String key, String redisKey, long ttl, long now,
			Map<String, String> fields) {
		Set<String> owners = new LinkedHashSet<>();
		boolean held = false;
		String writer = fields.get("w");
		if (writer != null && deadline(fields.get("wt")) >= now) {
			held = true;
			if (!writer.startsWith("~")) {
				owners.add(writer);
			}
		}
		int waiting = 0;
		for (Map.Entry<String, String> field : fields.entrySet()) {
			String name = field.getKey();
			if (name.startsWith("r:")) {
				String reader = name.substring(2);
				if (deadline(fields.get("t:" + reader)) >= now) {
					held = true;
					if (!reader.startsWith("~")) {
						owners.add(reader);
					}
				}
			}
			else if ((name.startsWith("ww:") || name.startsWith("rw:")) && deadline(field.getValue()) >= now) {
				waiting++;
			}
		}
		return new RedisLockState(key, redisKey, "read-write", held, ttl, List.copyOf(owners), waiting);
	}

	/** The deadline at the start of a field's value ({@code <deadline>} or {@code <deadline>:<since>}). */
	private static long deadline(@Nullable String value) {
		if (value == null) {
			return Long.MIN_VALUE;
		}
		int colon = value.indexOf(':');
		return Long.parseLong((colon < 0) ? value : value.substring(0, colon));
	}

	private static String text(Object value) {
		return (value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(value);
	}

	private static RedisScript<?> script(String name) {
		return RedisScript.of(new ClassPathResource(name, RedisLockInspector.class), List.class);
	}

}
