package io.github.distributedlock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The holder of W7 ({@link ManyLocksBenchmark}) on Redisson: {@code RLock.lock()} without a lease, so its
 * watchdog renews it; {@code lockWatchdogTimeout} 3 s (it renews a third of it after the last renewal, as ours
 * does). Its watchdog runs on its timer and Netty threads, which also do its I/O. Not thread-safe.
 * <p>
 * Its warm-up takes locks with a lease (no watchdog): in Redisson 4.7.0 every time the set of watched locks
 * goes from empty to not empty, the watchdog schedules another renewal timer, and a timer from before keeps
 * running if it finds the watchdog running again when it fires; so watchdog locks taken and released one after
 * the other within a third of the watchdog timeout leave that many timers, each renewing every held lock.
 * {@code redisson-after-churn} warms up that way (500 watchdog lock+unlock pairs) to show it.
 */
final class RedissonHolder implements ManyLocksHolder {

	private final RedissonClient redisson;

	private final RLock[] locks;

	private final boolean churn;

	RedissonHolder(String host, int port, int n, boolean churn) {
		Config config = LockPeer.RedissonPeer.config(host, port);
		config.setLockWatchdogTimeout(LEASE.toMillis());
		this.redisson = Redisson.create(config);
		this.locks = new RLock[n];
		this.churn = churn;
	}

	@Override
	public void warmUp() {
		for (int i = 0; i < WARM_UP_LOCKS; i++) {
			RLock lock = this.redisson.getLock("redisson:bench:warm:" + i);
			if (this.churn) {
				lock.lock();
			}
			else {
				lock.lock(30, TimeUnit.SECONDS);
			}
			lock.unlock();
		}
	}

	@Override
	public void acquire(int index, String key) {
		this.locks[index] = this.redisson.getLock("redisson:" + key);
		this.locks[index].lock();
	}

	@Override
	public int lost() throws Exception {
		long thread = Thread.currentThread().getId();
		int lost = 0;
		int chunk = 1000;
		for (int from = 0; from < this.locks.length; from += chunk) {
			List<CompletableFuture<Boolean>> held = new ArrayList<>(chunk);
			for (int i = from; i < Math.min(this.locks.length, from + chunk); i++) {
				held.add(this.locks[i].isHeldByThreadAsync(thread).toCompletableFuture());
			}
			for (CompletableFuture<Boolean> future : held) {
				if (!future.get()) {
					lost++;
				}
			}
		}
		return lost;
	}

	@Override
	public void release(int index) {
		this.locks[index].unlock();
	}

	@Override
	public String[] watchdogThreads() {
		return new String[] { "redisson-" };
	}

	@Override
	public String[] ioThreads() {
		return new String[0];
	}

	@Override
	public void close() {
		this.redisson.shutdown();
	}

}
