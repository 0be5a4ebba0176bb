package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.redis.Hold.HoldId;
import org.jspecify.annotations.Nullable;

/**
 * The acquire side of a {@link RedisLockClient}: starts an {@link Acquisition} for each request, and holds
 * what its steps share: re-entering an owner's hold (locally while its lease is confirmed for long enough),
 * the local queues, waiting in Redis, replica sync, and recording a new hold and having the watchdog renew
 * it. Thread-safe.
 */
final class HoldAcquirer {

	private static final CompletableFuture<Boolean> REENTERED = CompletableFuture.completedFuture(true);

	private static final CompletableFuture<Boolean> RELEASED_MEANWHILE = CompletableFuture.completedFuture(false);

	final String keyPrefix;

	/** {@code <client id>:}, the start of every owner id of the client. */
	private final String ownerPrefix;

	final ConcurrentHashMap<HoldId, Hold> holds;

	/**
	 * The acquisition of each owner's hold that is under way: a second acquisition of the same lock by the same
	 * owner (two branches of one reactive chain) waits for it and then re-enters, so one owner never holds one
	 * lock twice in Redis, and a re-entry always sees the outer hold's token. The shutdown waits for them too
	 * ({@link ShutdownGrace}).
	 */
	final ConcurrentHashMap<HoldId, Acquisition> inFlight;

	/** Numbers the acquisition attempts of this client (see {@link #newAttempt(long)}). */
	private final AtomicLong attempts = new AtomicLong();

	final LocalQueues queues;

	final LockCommands commands;

	final WaitingAcquirer waiting;

	private final LeaseWatchdog watchdog;

	/** Replica sync, or {@code null} when off (sync-replicas 0): then it costs no check but this null test. */
	final @Nullable ReplicaSync replicaSync;

	/** Undoes an acquisition that too few replicas acknowledged, and a failed re-entry. */
	final HoldReleaser releaser;

	/** Tells the observer and the log of acquisitions and losses. */
	private final HoldEvents events;

	/** Runs the steps that follow a turn in a local queue (see {@link WaitingAcquirer}). */
	final Executor resume;

	/**
	 * Runs blocking housekeeping (replica sync's connections) off Lettuce's I/O threads; refuses tasks once the
	 * client is closed, so that an acquisition fails rather than waits for work that never runs.
	 */
	final Executor background;

	HoldAcquirer(String keyPrefix, String clientId, ConcurrentHashMap<HoldId, Hold> holds,
			ConcurrentHashMap<HoldId, Acquisition> inFlight, LocalQueues queues,
			LockCommands commands, WaitingAcquirer waiting, LeaseWatchdog watchdog, @Nullable ReplicaSync replicaSync,
			HoldReleaser releaser, HoldEvents events, Executor resume, Executor background) {
		this.keyPrefix = keyPrefix;
		this.ownerPrefix = clientId + ":";
		this.holds = holds;
		this.inFlight = inFlight;
		this.queues = queues;
		this.commands = commands;
		this.waiting = waiting;
		this.watchdog = watchdog;
		this.replicaSync = replicaSync;
		this.releaser = releaser;
		this.events = events;
		this.resume = resume;
		this.background = background;
	}

	/**
	 * Starts acquiring or re-entering a lock for an owner; the first step runs on the calling thread.
	 * @param request what to acquire (checked when it was built)
	 * @param owner a thread's id, or a negative number for an owner that is not a thread
	 * @param thread the owner thread, or {@code null} for an owner that is not a thread
	 * @return the acquisition, whose result completes with the hold, or {@code null} if the timeout passed (or it
	 * was cancelled) first; see {@link Acquisition#result()} for its failures
	 */
	Acquisition acquire(LockRequest request, long owner, @Nullable Thread thread) {
		String key = request.key();
		Duration timeout = request.timeout();
		Duration holdAtLeast = request.holdAtLeast();
		boolean tryOnce = timeout != null && timeout.isZero();
		long deadline = (timeout == null) ? Long.MAX_VALUE
				: System.nanoTime() + saturatedNanos(timeout);
		Acquisition acquisition = new Acquisition(this, new HoldId(key, request.type(), owner), this.keyPrefix + key,
				thread, request.lease().toMillis(), request.autoRenew(), saturatedNanos(holdAtLeast), tryOnce, deadline,
				request.permits());
		acquisition.start();
		return acquisition;
	}

	/**
	 * A new owner id in Redis for one acquisition attempt of an owner: {@code <client id>:<thread id>/<attempt>},
	 * or {@code <client id>:async-<n>/<attempt>} for an owner that is not a thread. Every command about the
	 * attempt names it, so a late or repeated command (Lettuce re-sends commands whose connection dropped; a
	 * round trip that timed out may still have run) acts on that attempt only, never on a later one of the same
	 * owner.
	 * @param owner a thread's id, or a negative number for an owner that is not a thread
	 * @return the attempt's owner id
	 */
	String newAttempt(long owner) {
		String base = (owner >= 0) ? this.ownerPrefix + owner : this.ownerPrefix + "async-" + -owner;
		return base + "/" + this.attempts.incrementAndGet();
	}

	/**
	 * Re-enters an owner's hold.
	 * @return completes with {@code true} when re-entered, with {@code false} if the hold was released meanwhile
	 * (by a handle closed on another thread): the caller acquires anew; fails with a {@link LockLostException}
	 * if the lock was lost, or a {@code DistributedLockException} if Redis could not be reached (the outcome is
	 * then unknown: the last release releases whatever Redis records)
	 */
	CompletableFuture<Boolean> reenter(Hold hold, long leaseMillis) {
		// under the hold's monitor: a handle closed on another thread must not release it halfway through
		synchronized (hold) {
			if (hold.released) {
				return RELEASED_MEANWHILE;
			}
			if (hold.lostReason != null) {
				throw new LockLostException(hold.id.key(), hold.lostReason + "; it cannot be re-entered");
			}
			hold.count++;
			// while the last acquire or renewal still guarantees the lock for a third of the lease or more, a
			// re-entry needs no round trip; a longer lease, or one nearly run out, is extended in Redis
			if (leaseMillis <= hold.leaseMillis && hold.confirmedUntil - System.nanoTime() > hold.renewalPeriodNanos()) {
				return REENTERED;
			}
			// counted already, so that a release by another handle meanwhile does not release the lock
		}
		long sentAt = System.nanoTime();
		CompletableFuture<ScriptExecutor.Pair> tried;
		try {
			tried = this.commands.tryAcquire(hold.id.type(), hold.permits, hold.id.key(), hold.redisKey, hold.owner,
					"", leaseMillis, true, 0, 0);
		}
		catch (RuntimeException ex) {
			tried = CompletableFuture.failedFuture(ex);
		}
		return tried.handle((reply, ex) -> {
			if (ex == null && reply.result() == LockScripts.ACQUIRED) {
				long confirmed = sentAt + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
				synchronized (hold) {
					if (confirmed - hold.confirmedUntil > 0) {
						hold.confirmedUntil = confirmed;
					}
				}
				return true;
			}
			this.releaser.dropReentry(hold);
			if (ex != null) {
				throw ScriptExecutor.unwrap(ex);
			}
			String reason = "its lease of " + hold.leaseMillis + " ms ran out before it was re-entered";
			hold.markLost(reason);
			this.events.later(() -> this.events.lost(hold));
			throw new LockLostException(hold.id.key(), reason);
		});
	}

	/**
	 * Records a new hold, tells of it, and has the watchdog renew it if it auto-renews, or watch the end of its
	 * hard lease.
	 * @param sentAt the {@link System#nanoTime()} its lease counts from
	 */
	Hold onAcquired(HoldId id, String redisKey, String owner, @Nullable Thread thread, long leaseMillis,
			boolean autoRenew, long sentAt, long token, int permits) {
		Hold hold = new Hold(id, redisKey, owner, thread, leaseMillis, autoRenew, sentAt, token, permits);
		this.holds.put(id, hold);
		this.events.acquired(hold);
		// renewed if it auto-renews, else told lost if its hard lease ends before its release
		this.watchdog.schedule(hold);
		return hold;
	}

	/** A duration in nanoseconds; one too long for a {@code long} is cut to a few centuries. */
	static long saturatedNanos(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE / 2;
		}
	}

}
