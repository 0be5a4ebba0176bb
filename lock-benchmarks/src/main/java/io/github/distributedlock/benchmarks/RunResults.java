package io.github.distributedlock.benchmarks;

import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * What one run of {@code run.sh} measured, section by section ({@link ResultsRunner}); a section that was not run
 * ({@code -Dbench.sections}) is {@code null}. An immutable value but for the results it holds, which the run no
 * longer changes.
 * @param facts when, where, how long and under what load
 * @param locks W1 to W5 of every peer
 * @param semaphores S1 and S2 of this library and Redisson
 * @param cost the uncontended pair's cost per peer, in turns
 * @param redlock Redlock against RedissonRedLock, on 3 nodes, then on 5
 * @param cluster classic against sharded notifications on a cluster
 */
record RunResults(Facts facts, LockWorkloads.@Nullable LockRun locks, @Nullable JmhResults semaphores,
		@Nullable Cost cost, @Nullable List<RedlockBenchmark.NodeRun> redlock,
		@Nullable List<ClusterNotificationRunner.ModeRun> cluster) {

	/**
	 * When and how a run ran.
	 * @param started when run.sh started
	 * @param took how long the run took, the build included
	 * @param sections how long each section took, in the order they ran
	 * @param machine cores and JVM
	 * @param redisVersion the {@code redis-server}'s version
	 * @param loadAtStart {@code uptime} when the measurements began
	 * @param loadAtEnd {@code uptime} when they ended
	 * @param rounds the rounds of every section
	 * @param quick whether it was a short run (one round, short iterations: a check of the tooling)
	 */
	record Facts(ZonedDateTime started, Duration took, Map<String, Duration> sections, String machine, String redisVersion, String loadAtStart,
			String loadAtEnd, int rounds, boolean quick) {
	}

	/**
	 * The uncontended pair's cost ({@link UncontendedCost}).
	 * @param samples one per peer per round
	 * @param pairs the measured pairs per peer per round
	 */
	record Cost(List<UncontendedCost.Sample> samples, int pairs) {
	}

}
