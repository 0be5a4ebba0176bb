package io.github.distributedlock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.github.distributedlock.annotation.LockType;

/**
 * One acquisition of a distributed lock: what {@link DistributedLockTemplate#acquire(LockDefinition)} returns,
 * and what {@link LockContext#current()} shows inside locked code. Closing it releases that one hold.
 * <pre class="code">
 * try (LockHandle lock = lockTemplate.acquire(LockDefinition.of("stock:" + sku))) {
 *     stock.write(sku, quantity, lock.fencingToken());   // the store refuses a token older than its last
 * }
 * </pre>
 * <h2>Fencing tokens</h2>
 * A lease can run out under a holder that is still working (a long GC pause, a network partition, a
 * failover), and then two owners believe they hold the lock. No lock can prevent that; a <em>fencing
 * token</em> lets the protected resource refuse the late writer: it remembers the largest token it has
 * accepted and refuses a write that carries a smaller one (M. Kleppmann, "How to do distributed locking",
 * 2016). Every acquisition of every lock type gets a token; a re-entry sees the token of its outer hold. Per
 * lock key, a token is strictly greater than every token handed out before for that key, by any owner of any
 * instance, also after the lock was released, expired, deleted, or lost in a Redis restart without
 * persistence. The Redis store takes tokens from the Redis server's clock (microseconds), raised above the
 * last token while the lock's key exists; its one limit is a server clock set back (or a failover to a
 * replica whose clock is behind) by more than the time since the last acquisition of that key.
 * <h2>Threads</h2>
 * A handle from {@link DistributedLockTemplate#acquire(LockDefinition)} is acquired as the calling thread, so
 * it is reentrant with that thread's other holds of the same lock; one from an asynchronous acquisition
 * ({@link LockClient#acquireAsync}) as its owner. Either may be closed by any thread, which is what
 * asynchronous code needs. Thread-safe.
 */
public interface LockHandle extends AutoCloseable {

	/**
	 * Returns the lock key.
	 * @return the key, without the Redis key prefix
	 */
	String key();

	/**
	 * Returns the lock type.
	 * @return the type this acquisition asked for
	 */
	LockType type();

	/**
	 * Returns the fencing token of this acquisition (or of the outer hold it re-entered).
	 * @return a positive number, strictly greater than every token handed out before for this key
	 */
	long fencingToken();

	/**
	 * Tells whether the lock is known to be lost, as this client knows it, without a round trip: the watchdog
	 * found it gone, renewal failed for longer than the lease, or a hard lease ran out.
	 * @return {@code true} if lost; {@code false} if still held as far as known, or already closed normally
	 */
	boolean isLost();

	/**
	 * Checks that the lock is not known to be lost, without a round trip; for long work that wants to stop
	 * early rather than learn of the loss at release.
	 * @throws LockLostException if {@link #isLost()}
	 */
	void checkHeld();

	/**
	 * Checks that the lock is not known to be lost and that its confirmed lease lasts longer than {@code margin}
	 * from now ({@link #leaseConfirmedUntil()}), without a round trip: for a step that must end while the lock
	 * still holds, such as a commit that takes up to {@code margin}.
	 * @param margin how long the lease must still be confirmed for; not negative
	 * @throws LockLostException if {@link #isLost()}, or if the confirmed lease ends within {@code margin}
	 * @throws IllegalArgumentException if {@code margin} is negative
	 */
	default void checkHeld(Duration margin) {
		checkHeld();
		Instant until = leaseConfirmedUntil();
		long left = until.equals(Instant.MAX) ? Long.MAX_VALUE : Duration.between(Instant.now(), until).toNanos();
		LockLossSignal.checkConfirmedFor(key(), left, margin);
	}

	/**
	 * Returns until when this client knows the lease holds, without a round trip: conservative, counted from
	 * when the last confirmed acquisition or renewal was <em>sent</em>, so the lock lives in the store at least
	 * until then unless it was deleted there. An auto-renewed lease moves later with each renewal; a hard lease
	 * ({@code autoRenew = false}) stays. After a loss, the last value confirmed.
	 * @return the wall-clock time until which the lease is confirmed
	 */
	default Instant leaseConfirmedUntil() {
		return Instant.MAX;
	}

	/**
	 * Returns a stage that completes when this client learns that the lock was lost (the watchdog found it gone,
	 * renewals failed for longer than the lease, its lease ran out while a renewal went unanswered, a hard lease
	 * ended before the release, or the client was closed under it), with the {@link LockLostException} its release would throw as its value; at once if
	 * it is known lost already. It never completes after a normal release, nor for a lock never lost. Its
	 * dependent actions run on a background thread of the client (for the Redis store the watchdog's), so they
	 * should be quick; no round trip.
	 * <pre class="code">
	 * handle.whenLost().thenAccept((loss) -&gt; job.stop());
	 * </pre>
	 * A store that cannot tell returns a stage that never completes (this default).
	 * @return the stage of the loss; not completable by its receiver
	 */
	default CompletionStage<LockLostException> whenLost() {
		return new CompletableFuture<LockLostException>().minimalCompletionStage();
	}

	/**
	 * Releases this hold; the lock is freed when the owner's last hold is released. A second call does
	 * nothing.
	 * @throws LockLostException if the lock was lost before this release; another owner's lock is untouched
	 * @throws DistributedLockException if Redis could not be reached; the lock then ends with its lease
	 */
	@Override
	void close();

	/**
	 * Releases this hold like {@link #close()}, without blocking the calling thread where the store allows it
	 * (the Redis store on Lettuce sends the release and returns). A second call, or a call after
	 * {@link #close()}, does nothing.
	 * @return completes when released; completes exceptionally with a {@link LockLostException} if the lock was
	 * lost before this release, or a {@link DistributedLockException} if Redis could not be reached (the lock
	 * then ends with its lease)
	 */
	default CompletionStage<Void> closeAsync() {
		try {
			close();
			return CompletableFuture.completedFuture(null);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

}
