package io.github.distributedlock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.StreamUtils;

/**
 * The Lua scripts, each loaded once from its documented {@code .lua} file beside this class. Every
 * check-then-act on a lock is one of them, so it runs atomically in Redis. Spring Data Redis runs them with
 * EVALSHA and falls back to EVAL when Redis does not know the script yet.
 */
final class LockScripts {

	/** Returned by acquire scripts when the lock was acquired or re-entered. */
	static final long ACQUIRED = -1;

	/** Returned by acquire scripts for a re-entry whose outer hold is gone: the lock was lost. */
	static final long LOST = -2;

	/** Returned by the write-acquire script to an owner that holds the read side: upgrades are refused. */
	static final long UPGRADE = -3;

	/** Returned by release scripts when the owner holds no hold. */
	static final long NOT_HELD = -1;

	static final RedisScript<Long> REENTRANT_ACQUIRE = load("reentrant_acquire.lua");

	static final RedisScript<Long> REENTRANT_RELEASE = load("reentrant_release.lua");

	static final RedisScript<Long> REENTRANT_RENEW = load("reentrant_renew.lua");

	private LockScripts() {
	}

	private static RedisScript<Long> load(String name) {
		ClassPathResource resource = new ClassPathResource(name, LockScripts.class);
		try (InputStream in = resource.getInputStream()) {
			return RedisScript.of(StreamUtils.copyToString(in, StandardCharsets.UTF_8), Long.class);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot read Lua script " + resource, ex);
		}
	}

}
