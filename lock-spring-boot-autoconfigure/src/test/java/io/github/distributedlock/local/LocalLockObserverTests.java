package io.github.distributedlock.local;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.LockObserver;
import io.github.distributedlock.core.LockRequest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What a {@link LocalLockClient} tells its {@link LockObserver}: an owner's outermost hold only, a loss once and
 * before the release of the hold it concerns, and an observer that throws breaks nothing.
 */
class LocalLockObserverTests {

	@Test
	void tellsTheOutermostHoldWithItsPermitCount() throws Exception {
		Recorder recorder = new Recorder();
		try (LocalLockClient client = new LocalLockClient()) {
			client.setLockObserver(recorder);
			LockHandle outer = client.acquire(LockRequest.builder("k").permits(3).lease(Duration.ofSeconds(5))
					.interruptible(false).build());
			LockHandle inner = client.acquire(LockRequest.builder("k").permits(3).lease(Duration.ofSeconds(5))
					.interruptible(false).build());
			inner.close();
			assertThat(recorder.calls).containsExactly("acquired k 3");
			outer.close();
			assertThat(recorder.calls).containsExactly("acquired k 3", "released k 3 lost=false");
		}
	}

	@Test
	void aLossIsToldOnceAndBeforeTheReleaseOfItsHold() throws Exception {
		Recorder recorder = new Recorder();
		// a slow observer: the release comes while the loss is still being told on the pool thread
		recorder.lostDelay = Duration.ofMillis(300);
		try (LocalLockClient client = new LocalLockClient()) {
			client.setLockObserver(recorder);
			LockHandle first = client.acquire(LockRequest.builder("k").lease(Duration.ofMillis(100)).autoRenew(false)
					.interruptible(false).build());
			// another owner waits the hard lease out and takes the lock: the first learns it lost it
			LockHandle second = client.acquireAsync(LockRequest.builder("k").lease(Duration.ofSeconds(5))
					.timeout(Duration.ofSeconds(10)).owner(client.newAsyncOwner()).build()).get();
			assertThatThrownBy(first::close).isInstanceOf(LockLostException.class);
			second.close();
			await().atMost(Duration.ofSeconds(5)).until(() -> recorder.calls.size() == 5);
			String lost = "lost k 1 its lease of 100 ms ran out (auto-renew was off)";
			// the loss is learnt when the second owner takes the lock, and told on a pool thread: it may come
			// before or after the second acquisition, but always before the first hold's release
			assertThat(recorder.calls).containsExactlyInAnyOrder("acquired k 1", "acquired k 1", lost,
					"released k 1 lost=true", "released k 1 lost=false");
			assertThat(recorder.calls).as(recorder.calls.toString()).isNotEmpty();
			assertThat(recorder.calls.indexOf(lost)).as(recorder.calls.toString()).isLessThan(recorder.calls.indexOf("released k 1 lost=true"));
			assertThat(recorder.calls.indexOf("released k 1 lost=true")).as(recorder.calls.toString())
				.isLessThan(recorder.calls.indexOf("released k 1 lost=false"));
		}
	}

	@Test
	void aClosedClientTellsTheLossOfWhatItStillHeld() throws Exception {
		Recorder recorder = new Recorder();
		LocalLockClient client = new LocalLockClient();
		client.setLockObserver(recorder);
		client.acquire(LockRequest.builder("k").type(LockType.WRITE).lease(Duration.ofSeconds(5)).interruptible(false)
				.build());
		client.close();
		await().atMost(Duration.ofSeconds(5)).until(() -> recorder.calls.size() == 2);
		assertThat(recorder.calls.get(1)).startsWith("lost k 1 its client was closed");
	}

	@Test
	void anObserverThatThrowsBreaksNoLockOperation() throws Exception {
		try (LocalLockClient client = new LocalLockClient()) {
			client.setLockObserver(new LockObserver() {
				@Override
				public void acquired(String key, LockType type) {
					throw new IllegalStateException("observer bug");
				}

				@Override
				public void released(String key, LockType type, long heldNanos, boolean lost) {
					throw new IllegalStateException("observer bug");
				}
			});
			LockHandle held = client.acquire(LockRequest.builder("k").lease(Duration.ofSeconds(5)).interruptible(false)
					.build());
			assertThat(held).isNotNull();
			held.close();
			assertThat(client.heldLocks()).isEmpty();
		}
	}

	/** Records every call, in order. */
	static final class Recorder implements LockObserver {

		final List<String> calls = new CopyOnWriteArrayList<>();

		/** How long {@link #lost} takes, to widen a race; none by default. */
		Duration lostDelay = Duration.ZERO;

		@Override
		public void acquired(String key, LockType type, int permits) {
			this.calls.add("acquired " + key + " " + permits);
		}

		@Override
		public void released(String key, LockType type, int permits, long heldNanos, boolean lost) {
			this.calls.add("released " + key + " " + permits + " lost=" + lost);
		}

		@Override
		public void lost(String key, LockType type, int permits, String reason) {
			if (!this.lostDelay.isZero()) {
				LockSupport.parkNanos(this.lostDelay.toNanos());
			}
			this.calls.add("lost " + key + " " + permits + " " + reason);
		}

	}

}
