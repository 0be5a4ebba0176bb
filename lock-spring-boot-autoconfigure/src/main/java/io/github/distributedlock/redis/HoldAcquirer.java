package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
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

	/** The kinds of lock, bound to the client's scripts. */
	private final LockKinds kinds;

	final WaitingAcquirer waiting;

	private final LeaseWatchdog watchdog;

	/** Replica sync, or {@code null} when off (sync-replicas 0): then it costs no check but this null test. */
	final @Nullable ReplicaSync replicaSync;

	/** Undoes an acquisition that too few replicas acknowledged, and a failed re-entry. */
	final HoldReleaser releaser;

	/** Tells the observer and the log of acquisitions and losses. */
	private final HoldEvents events;

	/** Dates each new hold with the server life that granted it. */
	private final ServerLife serverLife;

	/** Runs the steps that follow a turn in a local queue (see {@link WaitingAcquirer}). */
	final Executor resume;

	/**
	 * Runs blocking housekeeping (replica sync's connections) off Lettuce's I/O threads; refuses tasks once the
	 * client is closed, so that an acquisition fails rather than waits for work that never runs.
	 */
	final Executor background;

	/**
	 * Makes the acquire side of a session, from its parts made before it.
	 * @param session the session: its holds, acquisitions under way, local queues, waits in Redis, watchdog,
	 * replica sync, release side, events and threads
	 * @param keyPrefix prefix of every Redis key the client writes
	 * @param kinds the kinds of lock, bound to the session's scripts
	 * @param serverLife dates each new hold with the server life that granted it
	 */
	HoldAcquirer(ClientSession session, String keyPrefix, LockKinds kinds, ServerLife serverLife) {
		this.keyPrefix = keyPrefix;
		this.ownerPrefix = session.clientId + ":";
		this.holds = session.holds;
		this.inFlight = session.acquisitions;
		this.queues = session.queues;
		this.kinds = kinds;
		this.waiting = session.waiting;
		this.watchdog = session.watchdog;
		this.replicaSync = session.replicaSync;
		this.releaser = session.releaser;
		this.events = session.events;
		this.serverLife = serverLife;
		this.resume = session.threads.resume;
		this.background = session.watchdog.executor();
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
		Acquisition acquisition = new Acquisition(this, request, new HoldId(request.key(), request.type(), owner),
				this.kinds.of(request.type(), request.permits()), thread);
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
		// while the last acquire or renewal still guarantees the lock for a third of the lease or more, a re-entry
		// needs no round trip; a longer lease, or one nearly run out, is extended in Redis, the re-entry counted
		// already, so that a release by another handle meanwhile does not release the lock
		switch (hold.reenter(leaseMillis)) {
			case RELEASED:
				return RELEASED_MEANWHILE;
			case LOCAL:
				return REENTERED;
			default:
				break;
		}
		long sentAt = System.nanoTime();
		CompletableFuture<ScriptExecutor.Pair> tried;
		try {
			tried = hold.kind().reenter(hold, leaseMillis);
		}
		catch (RuntimeException ex) {
			tried = CompletableFuture.failedFuture(ex);
		}
		return tried.handle((reply, ex) -> {
			if (ex == null && reply.result() == LockScripts.ACQUIRED) {
				hold.confirm(sentAt, leaseMillis);
				return true;
			}
			this.releaser.dropReentry(hold);
			if (ex != null) {
				throw ScriptExecutor.unwrap(ex);
			}
			String reason = "its lease of " + hold.leaseMillis() + " ms ran out before it was re-entered";
			hold.markLost(reason);
			this.events.later(() -> this.events.lost(hold));
			throw new LockLostException(hold.key(), reason);
		});
	}

	/**
	 * Records a new hold, tells of it, and has the watchdog renew it if it auto-renews, or watch the end of its
	 * hard lease.
	 * @param attempt what was acquired
	 * @param sentAt the {@link System#nanoTime()} its lease counts from: before the confirming command was sent
	 * @param token its fencing token
	 * @param thread the owner thread, or {@code null} for an owner that is not a thread
	 * @param queue the local queue it was acquired through, or {@code null}
	 * @param queueHead whether the owner holds the head of {@code queue}
	 */
	Hold onAcquired(Attempt attempt, long sentAt, long token, @Nullable Thread thread, @Nullable LocalQueue queue,
			boolean queueHead) {
		Grant grant = new Grant(sentAt, token, this.serverLife.generationOf(sentAt));
		Hold hold = new Hold(attempt, grant, thread, queue, queueHead);
		this.holds.put(attempt.id(), hold);
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
