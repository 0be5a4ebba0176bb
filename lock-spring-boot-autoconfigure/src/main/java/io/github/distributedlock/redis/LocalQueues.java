package io.github.distributedlock.redis;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;

import io.github.distributedlock.annotation.LockType;
import org.jspecify.annotations.Nullable;

/**
 * The {@link LocalQueue}s of one client's exclusive locks, by lock type and Redis key, while any owner of the
 * client holds or waits for one. Keyed by type too: a reentrant lock and the write side of a read/write lock
 * on one key are not one queue, so an owner holding one never waits in the queue of the other for itself, and
 * a reentrant release never hands its hold to a writer (Redis refuses to mix the two on one key). Thread-safe.
 */
final class LocalQueues {

	private final ConcurrentHashMap<String, LocalQueue> reentrant = new ConcurrentHashMap<>();

	private final ConcurrentHashMap<String, LocalQueue> write = new ConcurrentHashMap<>();

	private final ScheduledExecutorService timer;

	/**
	 * @param timer ends the queues' waits at their deadlines
	 */
	LocalQueues(ScheduledExecutorService timer) {
		this.timer = timer;
	}

	/**
	 * Joins the queue of a lock, making it if it has no member yet; to be left with {@link #leave}.
	 * @param type {@link LockType#REENTRANT} or {@link LockType#WRITE}
	 */
	LocalQueue join(String redisKey, LockType type) {
		return queues(type).compute(redisKey, (k, queue) -> {
			LocalQueue joined = (queue != null) ? queue : new LocalQueue(this.timer);
			joined.addMember();
			return joined;
		});
	}

	/** Leaves the queue of a lock; the last member to leave drops it. */
	void leave(String redisKey, LockType type) {
		queues(type).computeIfPresent(redisKey, (k, current) -> {
			return current.removeMember() ? null : current;
		});
	}

	/** Returns the queue of a lock, or {@code null} while it has no member. */
	@Nullable LocalQueue get(String redisKey, LockType type) {
		return queues(type).get(redisKey);
	}

	private ConcurrentHashMap<String, LocalQueue> queues(LockType type) {
		return (type == LockType.WRITE) ? this.write : this.reentrant;
	}

}
