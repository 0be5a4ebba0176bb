package io.github.distributedlock.benchmarks;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.LockCapabilities;
import io.github.distributedlock.core.LockCapability;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockObserver;
import io.github.distributedlock.core.LockRequest;
import org.jspecify.annotations.Nullable;

/**
 * A lock client without a store, for W6's cost of observability alone: every acquisition succeeds at once and
 * tells its observer, as the Redis client does, so that a benchmark measures what meters and observations add to
 * a call without the Redis round trip that hides it. Not a lock: for benchmarks only, one thread.
 */
final class StubLockClient implements LockClient {

	private static final LockCapabilities CAPABILITIES = LockCapabilities.of("stub", LockCapability.READ_WRITE,
			LockCapability.MINIMUM_HOLD);

	private final LockObserver observer;

	StubLockClient(LockObserver observer) {
		this.observer = observer;
	}

	@Override
	public String getClientId() {
		return "stub";
	}

	@Override
	public LockCapabilities capabilities() {
		return CAPABILITIES;
	}

	@Override
	public @Nullable LockHandle acquire(LockRequest request) {
		String key = request.key();
		LockType type = request.type();
		long acquiredAt = System.nanoTime();
		this.observer.acquired(key, type);
		return new LockHandle() {

			@Override
			public String key() {
				return key;
			}

			@Override
			public LockType type() {
				return type;
			}

			@Override
			public long fencingToken() {
				return 1;
			}

			@Override
			public boolean isLost() {
				return false;
			}

			@Override
			public void checkHeld() {
			}

			@Override
			public void close() {
				StubLockClient.this.observer.released(key, type, System.nanoTime() - acquiredAt, false);
			}

		};
	}

	@Override
	public void release(String key, LockType type) {
		throw new UnsupportedOperationException("handles only");
	}

	@Override
	public boolean isHeldByCurrentThread(String key, LockType type) {
		return false;
	}

	@Override
	public void close() {
	}

}
