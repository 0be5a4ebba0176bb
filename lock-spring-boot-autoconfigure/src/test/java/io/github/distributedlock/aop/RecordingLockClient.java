package io.github.distributedlock.aop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.ForwardingLockClient;
import io.github.distributedlock.core.LockCapabilities;
import io.github.distributedlock.core.LockCapability;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockRequest;
import org.jspecify.annotations.Nullable;

/**
 * Passes every call to a real client and records the acquisitions, so tests see which locks an annotated
 * method took, in which order and with which settings.
 */
final class RecordingLockClient extends ForwardingLockClient {

	/** What it passes on: no asynchronous acquisitions and no semaphores, which it does not record. */
	private static final LockCapabilities CAPABILITIES = LockCapabilities.of("recording", LockCapability.READ_WRITE,
			LockCapability.MINIMUM_HOLD);

	record Acquisition(String key, LockType type, Duration lease, boolean autoRenew, @Nullable Duration timeout) {
	}

	final List<Acquisition> acquisitions = new CopyOnWriteArrayList<>();

	final List<String> releases = new CopyOnWriteArrayList<>();

	final List<Duration> holdsAtLeast = new CopyOnWriteArrayList<>();

	RecordingLockClient(LockClient delegate) {
		super(delegate);
	}

	List<String> acquiredKeys() {
		return this.acquisitions.stream().map(Acquisition::key).toList();
	}

	@Override
	public LockCapabilities capabilities() {
		return CAPABILITIES;
	}

	@Override
	public @Nullable LockHandle acquire(LockRequest request) throws InterruptedException {
		this.acquisitions.add(
				new Acquisition(request.key(), request.type(), request.lease(), request.autoRenew(), request.timeout()));
		this.holdsAtLeast.add(request.holdAtLeast());
		LockHandle handle = super.acquire(request);
		return (handle != null) ? new RecordingHandle(handle) : null;
	}

	@Override
	public void release(String key, LockType type) {
		this.releases.add(key);
		super.release(key, type);
	}

	/** Records its release, then passes it on. */
	private final class RecordingHandle implements LockHandle {

		private final LockHandle delegate;

		RecordingHandle(LockHandle delegate) {
			this.delegate = delegate;
		}

		@Override
		public String key() {
			return this.delegate.key();
		}

		@Override
		public LockType type() {
			return this.delegate.type();
		}

		@Override
		public long fencingToken() {
			return this.delegate.fencingToken();
		}

		@Override
		public boolean isLost() {
			return this.delegate.isLost();
		}

		@Override
		public void checkHeld() {
			this.delegate.checkHeld();
		}

		@Override
		public void close() {
			RecordingLockClient.this.releases.add(key());
			this.delegate.close();
		}

	}

}
