package io.github.distributedlock.local;

import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockClientContractTests;

/**
 * The lock contract on {@link LocalLockClient}s sharing one {@link LocalLockStore}, as instances share one Redis.
 */
class LocalLockClientContractTests extends LockClientContractTests {

	private final LocalLockStore store = new LocalLockStore();

	@Override
	protected LockClient createClient() {
		return new LocalLockClient(this.store, "lock:");
	}

	@Override
	protected boolean isGone(String key) {
		return !this.store.contains("lock:" + key);
	}

	@Override
	protected int waitingOwners(String key) {
		return this.store.waiting("lock:" + key);
	}

}
