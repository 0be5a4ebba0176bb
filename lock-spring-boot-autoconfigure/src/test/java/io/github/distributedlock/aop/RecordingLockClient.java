package io.github.distributedlock.aop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockHandle;
import org.jspecify.annotations.Nullable;

/**
 * Passes every call to a real client and records the acquisitions, so tests see which locks an annotated
 * method took, in which order and with which settings.
 */
final class RecordingLockClient implements LockClient {

	record Acquisition(String key, LockType type, Duration lease, boolean autoRenew, @Nullable Duration timeout) {
	}

	private final LockClient delegate;

	final List<Acquisition> acquisitions = new CopyOnWriteArrayList<>();

	final List<String> releases = new CopyOnWriteArrayList<>();

	final List<Duration> holdsAtLeast = new CopyOnWriteArrayList<>();

	RecordingLockClient(LockClient delegate) {
		this.delegate = delegate;
	}

	List<String> acquiredKeys() {
		return this.acquisitions.stream().map(Acquisition::key).toList();
	}

	@Override
	public String getClientId() {
		return this.delegate.getClientId();
	}

	@Override
	public @Nullable LockHandle acquire(String key, LockType type, Duration lease, boolean autoRenew,
			Duration holdAtLeast, @Nullable Duration timeout, boolean interruptible) throws InterruptedException {
		this.acquisitions.add(new Acquisition(key, type, lease, autoRenew, timeout));
		this.holdsAtLeast.add(holdAtLeast);
		LockHandle handle = this.delegate.acquire(key, type, lease, autoRenew, holdAtLeast, timeout, interruptible);
		return (handle != null) ? new RecordingHandle(handle) : null;
	}

	@Override
	public void release(String key, LockType type) {
		this.releases.add(key);
		this.delegate.release(key, type);
	}

	@Override
	public boolean isHeldByCurrentThread(String key, LockType type) {
		return this.delegate.isHeldByCurrentThread(key, type);
	}

	@Override
	public void close() {
		this.delegate.close();
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
