package io.github.distributedlock.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A {@link Lock} of a benchmark's own peer (the floor, the scripts called directly) that has only {@code lock},
 * {@code tryLock} and {@code unlock}: {@code lockInterruptibly} is {@code lock}, the rest is unsupported. Not
 * thread-safe beyond what its subclass says.
 */
abstract class BasicLock implements Lock {

	@Override
	public void lockInterruptibly() {
		lock();
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) {
		throw new UnsupportedOperationException();
	}

	@Override
	public Condition newCondition() {
		throw new UnsupportedOperationException();
	}

}
