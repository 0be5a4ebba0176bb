package io.github.distributedlock.redlock;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.LockRequest;
import org.jspecify.annotations.Nullable;

/**
 * Starts a {@link RedlockLockClient}'s acquisitions: re-enters an owner's hold that is still valid (no new vote),
 * or runs a {@link RedlockAcquisition} with a fresh attempt id and, once it holds, records the hold (with the
 * request's minimum hold, counted from then; a re-entry's may move it later), has it renewed and reported, and
 * hands out its handle. Thread-safe: the holds are a concurrent map shared with the
 * client and its releases.
 */
final class RedlockAcquirer {

	private final String clientId;

	private final String keyPrefix;

	private final RedlockCommands commands;

	private final RedlockNotifications notifications;

	private final ScheduledExecutorService scheduler;

	private final RedlockEvents events;

	private final RedlockRenewer renewer;

	private final RedlockReleases releases;

	private final Map<RedlockHold.HoldKey, RedlockHold> holds;

	private final AtomicLong attempts = new AtomicLong();

	/** The longest minimum hold counted: a longer one is as good as for ever. */
	private static final Duration LONGEST_HOLD = Duration.ofDays(36_500);

	RedlockAcquirer(String clientId, String keyPrefix, RedlockCommands commands, RedlockNotifications notifications,
			ScheduledExecutorService scheduler, RedlockEvents events, RedlockRenewer renewer, RedlockReleases releases,
			Map<RedlockHold.HoldKey, RedlockHold> holds) {
		this.clientId = clientId;
		this.keyPrefix = keyPrefix;
		this.commands = commands;
		this.notifications = notifications;
		this.scheduler = scheduler;
		this.events = events;
		this.renewer = renewer;
		this.releases = releases;
		this.holds = holds;
	}

	/**
	 * Acquires for one owner without waiting: re-enters its hold if it has one, otherwise starts an acquisition.
	 * @param request the request, already checked against the client's capabilities
	 * @param owner the owning thread's id, or an asynchronous owner (negative)
	 * @return completes with the handle, with {@code null} when the timeout passed, or fails; cancelling it
	 * cancels the acquisition
	 * @throws LockLostException if the owner's hold was lost
	 */
	CompletableFuture<@Nullable LockHandle> acquire(LockRequest request, long owner) {
		RedlockHold.HoldKey id = new RedlockHold.HoldKey(owner, request.key());
		RedlockHold held = this.holds.get(id);
		if (held != null) {
			LockHandle reentered = reenter(held, request);
			if (reentered != null) {
				return CompletableFuture.completedFuture(reentered);
			}
		}
		Long timeout = (request.timeout() == null) ? null : request.timeout().toNanos();
		RedlockAcquisition acquisition = new RedlockAcquisition(this.commands, this.notifications, this.scheduler,
				() -> attemptId(owner), id, RedlockKeys.of(this.keyPrefix, request.key()), request.lease().toMillis(),
				request.autoRenew(), timeout);
		CompletableFuture<@Nullable LockHandle> result = new CompletableFuture<>();
		acquisition.start().whenComplete((hold, failure) -> {
			if (failure != null) {
				result.completeExceptionally(failure);
				return;
			}
			if (hold == null) {
				result.complete(null);
				return;
			}
			hold.holdAtLeast(System.nanoTime(), nanos(request));
			this.holds.put(id, hold);
			this.renewer.watch(hold);
			this.events.acquired(hold);
			RedlockHandle handle = handle(hold, request);
			if (!result.complete(handle)) {
				handle.close();
			}
		});
		result.whenComplete((handle, failure) -> {
			if (failure instanceof CancellationException) {
				acquisition.result.cancel(false);
			}
		});
		return result;
	}

	private @Nullable LockHandle reenter(RedlockHold hold, LockRequest request) {
		String lost = hold.lostReason();
		if (lost == null && hold.validUntil() - System.nanoTime() <= 0) {
			lost = "its validity ended before a renewal reached a quorum";
			this.events.lost(hold, lost);
			lost = hold.lostReason();
		}
		if (lost != null) {
			throw new LockLostException(request.key(), lost);
		}
		if (!hold.reenter()) {
			return null;
		}
		hold.holdAtLeast(System.nanoTime(), nanos(request));
		return handle(hold, request);
	}

	/** The request's minimum hold in nanoseconds (0 for none), at most a century: added to a nanoTime it cannot overflow. */
	private static long nanos(LockRequest request) {
		return request.holdAtLeast().compareTo(LONGEST_HOLD) > 0 ? LONGEST_HOLD.toNanos()
				: request.holdAtLeast().toNanos();
	}

	private RedlockHandle handle(RedlockHold hold, LockRequest request) {
		RedlockHandle handle = new RedlockHandle(hold, this.releases);
		if (request.releasedByThread()) {
			hold.addByThread(handle);
		}
		return handle;
	}

	private String attemptId(long owner) {
		String base = this.clientId + ":" + ((owner >= 0) ? Long.toString(owner) : "async-" + -owner);
		return base + "/" + this.attempts.incrementAndGet();
	}

}
