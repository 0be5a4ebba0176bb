package io.github.distributedlock.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * This library's reentrant acquire and release scripts, with the arguments its client sends for an uncontended
 * pair, driven the way the floor drives its own (synchronous Lettuce, one connection, no lock client): beside
 * {@code ours} and {@code floor} it splits the W1 gap into what the scripts cost and what the client does around
 * them. Tries once; a diagnostic, not a lock to contend for.
 */
final class OursScripts implements LockPeer {

	private static final String[] ACQUIRE = { "reentrant_acquire_head.lua", "fence.lua", "notify.lua",
			"reentrant_common.lua", "reentrant_acquire.lua" };

	private static final String[] RELEASE = { "reentrant_release_head.lua", "notify.lua", "fence.lua",
			"reentrant_common.lua", "reentrant_release.lua" };

	private static final String ALL_HOLDS = Integer.toString(Integer.MAX_VALUE);

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private final String acquireSha;

	private final String releaseSha;

	private final String clientId = UUID.randomUUID().toString();

	private final AtomicLong attempts = new AtomicLong();

	OursScripts(String host, int port) {
		this.client = RedisClient.create(RedisURI.create(host, port));
		this.connection = this.client.connect();
		this.acquireSha = this.connection.sync().scriptLoad(text(ACQUIRE));
		this.releaseSha = this.connection.sync().scriptLoad(text(RELEASE));
	}

	private static String text(String[] names) {
		StringBuilder text = new StringBuilder();
		for (String name : names) {
			try (InputStream in = OursScripts.class.getResourceAsStream("/io/github/distributedlock/redis/" + name)) {
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
		String[] keys = { "lock:" + key };
		RedisCommands<String, String> redis = this.connection.sync();
		return new Lock() {

			private String owner;

			@Override
			public boolean tryLock() {
				this.owner = OursScripts.this.clientId + ":" + Thread.currentThread().getId() + "/"
						+ OursScripts.this.attempts.incrementAndGet();
				Object reply = redis.evalsha(OursScripts.this.acquireSha, ScriptOutputType.MULTI, keys, this.owner,
						"30000", "0", "0", "0");
				return reply instanceof java.util.List<?> list && list.size() == 1;
			}

			@Override
			public void lock() {
				if (!tryLock()) {
					throw new IllegalStateException("ours-scripts is for uncontended pairs only");
				}
			}

			@Override
			public void unlock() {
				redis.evalsha(OursScripts.this.releaseSha, ScriptOutputType.INTEGER, keys, this.owner, "lock:__release",
						ALL_HOLDS);
			}

			@Override
			public void lockInterruptibly() {
				lock();
			}

			@Override
			public boolean tryLock(long time, TimeUnit unit) {
				throw new UnsupportedOperationException();
			}

			@Override
			public Condition newCondition() {
				throw new UnsupportedOperationException();
			}

		};
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

}
