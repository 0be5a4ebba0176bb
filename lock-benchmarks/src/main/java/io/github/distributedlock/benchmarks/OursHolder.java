package io.github.distributedlock.benchmarks;

import java.time.Duration;

import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;

/**
 * The holder of W7 ({@link ManyLocksBenchmark}) on this library: one thread's blocking acquisitions, each a hold
 * with a 3 s auto-renewed lease. Not thread-safe.
 */
final class OursHolder implements ManyLocksHolder {

	private final LockPeer.Ours peer;

	private final LockHandle[] handles;

	OursHolder(String host, int port, int n) {
		this.peer = new LockPeer.Ours(host, port);
		this.handles = new LockHandle[n];
	}

	private static LockDefinition definition(String key) {
		return LockDefinition.builder(key).lease(LEASE).acquireTimeout(Duration.ofSeconds(30)).build();
	}

	@Override
	public void warmUp() {
		for (int i = 0; i < WARM_UP_LOCKS; i++) {
			this.peer.template.acquire(definition("bench:warm:" + i)).close();
		}
	}

	@Override
	public void acquire(int index, String key) {
		this.handles[index] = this.peer.template.acquire(definition(key));
	}

	@Override
	public int lost() {
		int lost = 0;
		for (LockHandle handle : this.handles) {
			if (handle.isLost()) {
				lost++;
			}
		}
		return lost;
	}

	@Override
	public void release(int index) {
		this.handles[index].close();
	}

	@Override
	public String[] watchdogThreads() {
		return new String[] { "distributed-lock-" };
	}

	@Override
	public String[] ioThreads() {
		return new String[] { "lettuce-" };
	}

	@Override
	public void close() {
		this.peer.close();
	}

}
