package io.github.distributedlock.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.jspecify.annotations.Nullable;

/**
 * A pair of lock scripts called the way the floor calls its own (synchronous Lettuce on one connection, no lock
 * client), with the arguments this library's client sends for an uncontended pair (but for {@code token-floor}): a
 * diagnostic for W1, not a lock to contend for (a try that fails throws). Three of them:
 * <ul>
 * <li>{@code ours-scripts}: this library's reentrant acquire and release scripts, loaded from its jar as its client
 * loads them. Beside {@code ours} and {@code floor} it splits the W1 gap into what the client costs around the round
 * trips ({@code ours / ours-scripts}) and what the scripts cost ({@code ours-scripts / floor}).</li>
 * <li>{@code string-scripts}: a prototype, not this library's behaviour: an uncontended hold as a string key instead
 * of a hash. Acquire: {@code TIME}, then {@code SET <key> "<owner> <token>" NX PX <lease>} (2 commands against the
 * hash's {@code EXISTS}, {@code TIME}, {@code HSET}, {@code PEXPIRE}); release: {@code GET} (through {@code pcall}:
 * a contended key would be a hash), compare, {@code DEL} (2 against {@code HGET}, {@code HLEN}, {@code DEL}). So
 * {@code string-scripts / ours-scripts} is what that data model would gain inside Redis; what it leaves out (a
 * blocked try turning the string into a hash, re-entry, renewal, every other script learning a second form) is in
 * HISTORY.md, issue 33's sixth session.</li>
 * <li>{@code token-floor}: the same string scripts sent the floor's arguments (the owner and the lease to acquire,
 * the owner to release) instead of this library's (which add the re-entry flag, the wait and its id, the release
 * channel and the holds to release): the floor plus a fencing token from Redis's clock and nothing else. So
 * {@code token-floor / floor} is what the token costs, {@code string-scripts / token-floor} what the arguments of a
 * lock that can queue its caller cost, {@code ours-scripts / string-scripts} the hash, {@code ours / ours-scripts}
 * the client.</li>
 * </ul>
 * One thread at a time per lock.
 */
final class ScriptPeer implements LockPeer {

	private static final String ALL_HOLDS = Integer.toString(Integer.MAX_VALUE);

	private static final String STRING_ACQUIRE = String.join("\n",
			"local now = redis.call('TIME')",
			"local token = now[1] .. string.sub('00000' .. now[2], -6)",
			"if redis.call('set', KEYS[1], ARGV[1] .. ' ' .. token, 'NX', 'PX', ARGV[2]) then",
			"  return tonumber(token)",
			"end",
			"return { 0, 0 }");

	private static final String STRING_RELEASE = String.join("\n",
			"local v = redis.pcall('get', KEYS[1])",
			"if type(v) == 'string' then",
			"  if string.sub(v, 1, #ARGV[1] + 1) == ARGV[1] .. ' ' then",
			"    redis.call('del', KEYS[1])",
			"    return 0",
			"  end",
			"  return -1",
			"end",
			"return -3");

	private final String keyPrefix;

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private final String acquireSha;

	private final String releaseSha;

	private final String clientId = UUID.randomUUID().toString();

	private final AtomicLong attempts = new AtomicLong();

	/** Whether the scripts get the floor's arguments instead of this library's (see {@code token-floor}). */
	private final boolean floorArguments;

	private ScriptPeer(String host, int port, String keyPrefix, String acquire, String release,
			boolean floorArguments) {
		this.keyPrefix = keyPrefix;
		this.floorArguments = floorArguments;
		this.client = RedisClient.create(RedisURI.create(host, port));
		this.connection = this.client.connect();
		this.acquireSha = this.connection.sync().scriptLoad(acquire);
		this.releaseSha = this.connection.sync().scriptLoad(release);
	}

	/**
	 * This library's reentrant scripts, as its {@code LockScripts} concatenates their files.
	 * @param host Redis's host
	 * @param port Redis's port
	 * @return the peer, connected
	 */
	static ScriptPeer ours(String host, int port) {
		return ours(host, port, null);
	}

	/**
	 * This library's reentrant scripts, as its {@code LockScripts} concatenates their files, read from a directory
	 * instead of its jar: the peer {@code ours-scripts@<directory>}, which measures a change to the scripts against
	 * the jar's in alternating rounds of one run (the directory of a checkout of another commit, say
	 * {@code /tmp/before/lock-spring-boot-autoconfigure/src/main/resources/io/github/distributedlock/redis}).
	 * @param host Redis's host
	 * @param port Redis's port
	 * @param directory where the {@code .lua} files are, or {@code null} for this library's jar
	 * @return the peer, connected
	 */
	static ScriptPeer ours(String host, int port, @Nullable Path directory) {
		return new ScriptPeer(host, port, "lock:",
				text(directory, "reentrant_acquire_head.lua", "fence.lua", "notify.lua", "reentrant_common.lua",
						"reentrant_acquire.lua"),
				text(directory, "reentrant_release_head.lua", "notify.lua", "fence.lua", "reentrant_common.lua",
						"reentrant_release.lua"),
				false);
	}

	/**
	 * The string-key prototype.
	 * @param host Redis's host
	 * @param port Redis's port
	 * @return the peer, connected
	 */
	static ScriptPeer stringPrototype(String host, int port) {
		return new ScriptPeer(host, port, "string:", STRING_ACQUIRE, STRING_RELEASE, false);
	}

	/**
	 * The string-key prototype sent the floor's arguments: the floor with a fencing token.
	 * @param host Redis's host
	 * @param port Redis's port
	 * @return the peer, connected
	 */
	static ScriptPeer tokenFloor(String host, int port) {
		return new ScriptPeer(host, port, "token:", STRING_ACQUIRE, STRING_RELEASE, true);
	}

	private static String text(@Nullable Path directory, String... names) {
		StringBuilder text = new StringBuilder();
		for (String name : names) {
			try (InputStream in = (directory != null) ? Files.newInputStream(directory.resolve(name))
					: ScriptPeer.class.getResourceAsStream("/io/github/distributedlock/redis/" + name)) {
				text.append(new String(in.readAllBytes(), StandardCharsets.UTF_8)).append('\n');
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		return text.toString();
	}

	@Override
	public Lock lock(String key) {
		String[] keys = { this.keyPrefix + key };
		RedisCommands<String, String> redis = this.connection.sync();
		return new BasicLock() {

			private String owner = "";

			@Override
			public boolean tryLock() {
				this.owner = ScriptPeer.this.clientId + ":" + Thread.currentThread().getId() + "/"
						+ ScriptPeer.this.attempts.incrementAndGet();
				// acquired: the token alone (Lettuce's list output makes it a list of one); otherwise a pair
				Object reply = ScriptPeer.this.floorArguments
						? redis.evalsha(ScriptPeer.this.acquireSha, ScriptOutputType.MULTI, keys, this.owner, "30000")
						: redis.evalsha(ScriptPeer.this.acquireSha, ScriptOutputType.MULTI, keys, this.owner, "30000",
								"0", "0", "0");
				return reply instanceof List<?> list && list.size() == 1;
			}

			@Override
			public void lock() {
				if (!tryLock()) {
					throw new IllegalStateException(keys[0] + " is held: this peer is for uncontended pairs only");
				}
			}

			@Override
			public void unlock() {
				if (ScriptPeer.this.floorArguments) {
					redis.evalsha(ScriptPeer.this.releaseSha, ScriptOutputType.INTEGER, keys, this.owner);
				}
				else {
					redis.evalsha(ScriptPeer.this.releaseSha, ScriptOutputType.INTEGER, keys, this.owner,
							ScriptPeer.this.keyPrefix + "__released", ALL_HOLDS);
				}
			}

		};
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

}
