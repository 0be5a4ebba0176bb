package io.github.distributedlock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.StreamUtils;

/**
 * The result codes of the Lua scripts, the scripts that are no lock kind's own (each kind keeps its own, see
 * {@link LockKind}), and how every script is loaded: once, from its documented {@code .lua} files beside this class.
 * Every check-then-act on a lock is one script, so it runs atomically in Redis. Spring Data Redis runs them with
 * EVALSHA and falls back to EVAL when Redis does not know the script yet.
 */
final class LockScripts {

	/**
	 * Returned by acquire scripts (the first of their pair; the second is the fencing token) when the lock was
	 * acquired or re-entered. The reentrant acquire script answers an acquisition with the token alone, one
	 * integer, which {@link ScriptExecutor#runAcquireAsync} reads as this result and that token.
	 */
	static final long ACQUIRED = -1;

	/** Returned by acquire scripts for a re-entry whose outer hold is gone: the lock was lost. */
	static final long LOST = -2;

	/** Returned by the write-acquire script to an owner that holds the read side: upgrades are refused. */
	static final long UPGRADE = -3;

	/**
	 * Returned by acquire scripts when a key without TTL holds the lock (not written by this library, or made
	 * persistent): it never expires, so waiters try again now and then. (PTTL's own -1 would read as
	 * {@link #ACQUIRED}.)
	 */
	static final long NO_TTL = -4;

	/**
	 * Returned by acquire scripts when the key is a lock of the other kind (a reentrant lock's hash for the
	 * read/write scripts, and the other way round): one key cannot be both, the acquisition is refused.
	 */
	static final long WRONG_TYPE = -5;

	/**
	 * Returned by the reentrant and semaphore acquire scripts when the key is used with another permit count (a
	 * semaphore's key as a lock, a lock's as a semaphore, or a semaphore with another count); the token of the
	 * pair is then the key's count. Refused, nothing is changed.
	 */
	static final long OTHER_PERMITS = -6;

	/** Returned by release scripts when the owner holds no hold. */
	static final long NOT_HELD = -1;

	/** Returned by the reentrant release script when it handed the lock to the local owner it was given. */
	static final long HANDED_OVER = -2;

	/** Renews several reentrant locks (of one slot) in one script: the watchdog's batches. */
	static final RedisScript<Long> REENTRANT_RENEW_ALL = load("reentrant_renew_all.lua");

	/** A new holder's write to its lock, for {@code WAIT} to wait for (replica sync, see {@link ReplicaSync}). */
	static final RedisScript<Long> REPLICA_TOUCH = load("replica_touch.lua");

	/**
	 * The startup check of the ACL user's permissions ({@link RedisAccessProbe}); returns a list of refusals, not
	 * an integer.
	 */
	static final RedisScript<Long> PROBE = load("probe.lua");

	/** The server-life marker, written if absent (see {@link ServerLife}). */
	static final RedisScript<Long> SERVER_LIFE = load("server_life.lua");

	/** The server's version, or 0 before Redis 7.0 (see {@link NotificationChannels}). */
	static final RedisScript<Long> SERVER_VERSION = load("server_version.lua");

	private LockScripts() {
	}

	/**
	 * Loads a script from the concatenation of files, such as shared functions followed by one operation.
	 */
	static RedisScript<Long> load(String... names) {
		return RedisScript.of(text(names), Long.class);
	}

	/**
	 * Reads the concatenation of script files beside this class.
	 * @param names the files, in order
	 * @return their text
	 * @throws IllegalStateException if a file cannot be read
	 */
	static String text(String... names) {
		StringBuilder text = new StringBuilder();
		for (String name : names) {
			ClassPathResource resource = new ClassPathResource(name, LockScripts.class);
			try (InputStream in = resource.getInputStream()) {
				text.append(StreamUtils.copyToString(in, StandardCharsets.UTF_8)).append('\n');
			}
			catch (IOException ex) {
				throw new IllegalStateException("Cannot read Lua script " + resource, ex);
			}
		}
		return text.toString();
	}

}
