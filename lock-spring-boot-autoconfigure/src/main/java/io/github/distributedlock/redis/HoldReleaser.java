package io.github.distributedlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.HoldState;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.redis.Hold.HoldId;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The release side of a {@link RedisLockClient}: counts an owner's or a handle's releases down, and releases
 * the last one in Redis, handing a reentrant lock to the next local waiter in the same round trip, or keeping
 * it taken by nobody until its minimum hold ends; releases holds whose thread ended (orphans). What holders did
 * not release in time at shutdown is released by {@link ShutdownReleaser}, a release whose round trip failed is
 * judged by {@link ReleaseFailures}. Releases run asynchronously; a blocking caller waits for them. Thread-safe.
 */
final class HoldReleaser {

	private static final Log logger = LogFactory.getLog(RedisLockClient.class);

	private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

	private final ConcurrentHashMap<HoldId, Hold> holds;

	private final LocalQueues queues;

	private final ShutdownGrace shutdownGrace;

	private final AtomicBoolean closed;

	/** Tells the observer and the log of releases and losses. */
	private final HoldEvents events;

	/** Stops renewing released holds. */
	private final LeaseWatchdog watchdog;

	/** Judges releases whose round trip failed: lost, sent again, or failed. */
	private final ReleaseFailures failed;

	/** Tells a release that ran twice from one that found its lock wiped. */
	private final ReleaseReplayCheck replays;

	/**
	 * Makes the release side of a session, from its parts made before it.
	 * @param session the session: its holds, local queues, shutdown grace, closed flag (once set, a hold released
	 * at shutdown is not released again), events and watchdog
	 * @param replays tells a release that ran twice from one that found its lock wiped
	 */
	HoldReleaser(ClientSession session, ReleaseReplayCheck replays) {
		this.replays = replays;
		this.failed = new ReleaseFailures(session.closed, session.events, replays);
		this.holds = session.holds;
		this.queues = session.queues;
		this.shutdownGrace = session.shutdownGrace;
		this.closed = session.closed;
		this.events = session.events;
		this.watchdog = session.watchdog;
	}

	/**
	 * Releases one hold, on whichever thread: the lock's last hold is released in Redis, handed to the next
	 * local waiter, or, before its minimum hold ends, kept taken by nobody until then.
	 * @param hold the hold
	 * @param byHandle whether one of its {@link RedisLockHandle}s is closed by this release
	 * @return completes when released; fails with an {@link IllegalMonitorStateException} if all its holds were
	 * released already, a {@link LockLostException} if the lock was lost before this release (also: released at
	 * shutdown), a {@link DistributedLockException} if Redis could not be reached (the lock ends with its lease)
	 */
	CompletableFuture<Void> release(Hold hold, boolean byHandle) {
		String key = hold.key();
		// counted before the hold reads as released, so that the shutdown waits for its round trip
		this.shutdownGrace.releaseStarted();
		HoldState.Release step = hold.release(byHandle);
		if (step == HoldState.Release.LAST) {
			removeHold(hold);
			return releaseLast(hold);
		}
		this.shutdownGrace.releaseEnded();
		if (step == HoldState.Release.ALREADY_RELEASED) {
			return CompletableFuture.failedFuture(new IllegalMonitorStateException(
					"Lock '" + key + "' (" + hold.type() + ") was released already"));
		}
		// an inner release: the lock stays held, no round trip; report a loss this client knows of
		return hold.isKnownLost() ? CompletableFuture.failedFuture(new LockLostException(key, hold.lostReason()))
				: DONE;
	}

	/**
	 * Undoes a re-entry counted before its round trip, which failed: if the owner's other holds were released
	 * meanwhile, this was the last one, and the lock is released in Redis.
	 * @param hold the hold
	 */
	void dropReentry(Hold hold) {
		this.shutdownGrace.releaseStarted();
		if (!hold.dropReentry()) {
			this.shutdownGrace.releaseEnded();
			return;
		}
		removeHold(hold);
		releaseLast(hold).whenComplete((done, ex) -> {
			if (ex != null) {
				logger.debug("Released lock '" + hold.key() + "' after a failed re-entry", ex);
			}
		});
	}

	/** Releases the last hold of a hold, removed from the client's holds already, and tells how it went. */
	private CompletableFuture<Void> releaseLast(Hold hold) {
		String key = hold.key();
		if (this.closed.get() && hold.lostReason() != null) {
			// released at shutdown already, and the connection factory may be stopped: no round trip
			this.shutdownGrace.releaseEnded();
			leaveQueueOf(hold, false, null);
			this.events.released(hold, true);
			return CompletableFuture.failedFuture(new LockLostException(key, hold.lostReason()));
		}
		String toldLoss = hold.lostReason();
		if (toldLoss != null) {
			// told lost already: the caller learns it now, not after a round trip to a Redis that may not answer
			// (often the loss's cause); the release still goes out, to remove this attempt's entry if Redis has it
			releaseInRedis(hold).whenComplete((result, ex) -> {
				if (ex != null) {
					logger.debug("Could not release lock '" + key + "', which was lost already", ex);
				}
			});
			return CompletableFuture.failedFuture(lostAtRelease(hold, toldLoss));
		}
		return releaseInRedis(hold).handle((result, ex) -> {
			if (ex != null) {
				this.events.released(hold, false);
				throw ScriptExecutor.unwrap(ex);
			}
			if (result == ReleaseFailures.PENDING && hold.lostReason() == null) {
				// the work under the lock completed: a release that cannot reach Redis now must not undo its result
				this.events.released(hold, false);
				return null;
			}
			if (result == LockScripts.NOT_HELD || hold.lostReason() != null) {
				String reason = (hold.lostReason() != null) ? hold.lostReason() : hold.goneAtRelease();
				throw lostAtRelease(hold, reason);
			}
			this.events.released(hold, false);
			return null;
		});
	}

	/** Marks a released hold lost, tells it, and returns the exception its release fails with. */
	private LockLostException lostAtRelease(Hold hold, String reason) {
		hold.markLost(reason);
		if (hold.isLossReported()) {
			this.events.released(hold, true);
		}
		else {
			// the loss, told first, is published as an event: not on the I/O thread this may run on
			this.events.later(() -> this.events.released(hold, true));
		}
		return new LockLostException(hold.key(), reason);
	}

	/**
	 * Releases a hold's lock in Redis after its last hold was released, and leaves the local queue.
	 * @return the release script's result; failed with a {@link DistributedLockException} if Redis could not be
	 * reached
	 */
	private CompletableFuture<Long> releaseInRedis(Hold hold) {
		String key = hold.key();
		long keepMillis = hold.keepMillis();
		// the next local waiter, if any, gets the lock in the same round trip as this release
		LocalQueue queue = hold.queue();
		LocalQueue.Waiter next = (keepMillis <= 0 && queue != null && hold.isQueueHead() && hold.kind().handsOverLocally()
				&& hold.lostReason() == null) ? queue.reserveNext() : null;
		ReleaseReplayCheck.Sent sent = this.replays.sending();
		long sentAt = sent.at();
		CompletableFuture<ScriptExecutor.Pair> released;
		try {
			released = (keepMillis > 0) ? hold.kind().keep(hold, keepMillis).thenApply(KindScripts::withoutToken)
					: hold.kind().release(hold, next);
		}
		catch (RuntimeException ex) {
			released = CompletableFuture.failedFuture(ex);
		}
		return released.<CompletableFuture<Long>>handle((reply, ex) -> {
			boolean handedOver = ex == null && next != null && reply.result() == LockScripts.HANDED_OVER;
			try {
				if (handedOver) {
					queue.handedOver(next, sentAt, reply.token());
					if (WaitLog.handOvers()) {
						WaitLog.handedOver(key, hold.type(), hold.owner(), reply.token());
					}
				}
			}
			finally {
				leaveQueueOf(hold, handedOver, next);
				this.shutdownGrace.releaseEnded();
			}
			if (ex != null) {
				return CompletableFuture.completedFuture(this.failed.judge(hold, ScriptExecutor.unwrap(ex), sentAt));
			}
			if (reply.result() == LockScripts.NOT_HELD && hold.lostReason() == null) {
				// a release Lettuce sent again after a reconnect, or a lock wiped meanwhile
				return this.replays.notHeld(hold, sent);
			}
			return CompletableFuture.completedFuture(reply.result());
		}).thenCompose((result) -> result);
	}

	/**
	 * Undoes an acquisition that too few replicas acknowledged (replica sync): releases it as any release does,
	 * so a waiter is granted or woken, and the lock is not left to its lease.
	 * @return completes when done, however; never fails
	 */
	CompletableFuture<Void> undo(Hold hold) {
		return release(hold, false).handle((done, ex) -> {
			RuntimeException failure = (ex != null) ? ScriptExecutor.unwrap(ex) : null;
			if (failure != null && !(failure instanceof LockLostException)) {
				// lost: gone already, nothing to undo
				logger.warn("Could not undo the acquisition of lock '" + hold.key() + "' that too few replicas "
						+ "acknowledged; it ends with its lease of " + hold.leaseMillis() + " ms", failure);
			}
			return null;
		});
	}

	/**
	 * Releases a hold whose owner thread ended without releasing it (the watchdog found it orphaned): nobody
	 * can release it any more, and renewing it would keep the lock taken for the life of the JVM.
	 * @return completes when done; fails if Redis could not be reached
	 */
	CompletableFuture<Void> releaseOrphan(Hold hold) {
		this.shutdownGrace.releaseStarted();
		if (!hold.releaseIfOrphaned()) {
			this.shutdownGrace.releaseEnded();
			return DONE;
		}
		removeHold(hold);
		logger.warn("Releasing lock " + ShutdownGrace.describe(hold) + ": that thread ended without releasing it "
				+ "(a Lock must be unlocked by the thread that locked it, before it ends)");
		return releaseInRedis(hold).handle((result, ex) -> {
			hold.markLost("its owner " + hold.holder() + " ended without releasing it");
			this.events.later(() -> this.events.released(hold, true));
			if (ex != null) {
				throw ScriptExecutor.unwrap(ex);
			}
			return null;
		});
	}

	/**
	 * Removes a released hold. The shutdown counts its Redis release as in flight from before the hold read as
	 * released until {@link #releaseInRedis} ends, so that the connection factory is not stopped under that round
	 * trip.
	 */
	private void removeHold(Hold hold) {
		this.holds.remove(hold.id(), hold);
		this.watchdog.unschedule(hold);
	}

	/**
	 * Leaves the local queue after the Redis release: unless the lock was handed over, the next local waiter
	 * (the reserved one, if a hand-over did not happen) becomes the head and goes to Redis, finding it free.
	 */
	private void leaveQueueOf(Hold hold, boolean handedOver, LocalQueue.@Nullable Waiter reserved) {
		LocalQueue queue = hold.queue();
		if (queue != null) {
			if (hold.isQueueHead() && !handedOver) {
				queue.leave(reserved);
			}
			this.queues.leave(hold.redisKey(), hold.type());
		}
	}

}
