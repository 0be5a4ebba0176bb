package io.github.distributedlock.benchmarks;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * The instance (0 or 1) of a thread of a benchmark on two clients (W3m, S2, S3): threads alternate, so each
 * instance has half of them. A JMH state of each thread's own.
 */
@State(Scope.Thread)
public class InstanceOfThread {

	int index;

	/**
	 * Picks the thread's instance, once per trial.
	 * @param thread the thread's JMH parameters
	 */
	@Setup(Level.Trial)
	public void setUp(ThreadParams thread) {
		this.index = thread.getThreadIndex() % 2;
	}

}
