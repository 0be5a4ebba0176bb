package io.github.distributedlock.metrics;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names the {@code distributed.lock.acquire} observation and its key values: low-cardinality {@code lock}
 * (the lock name), {@code type} and {@code outcome} (see {@link LockTags}), which become the tags of its timer;
 * the full key only as the high-cardinality {@code lock.key}, which goes to traces, not to meters. An
 * application may pass a convention of its own to {@link ObservedLockClient}. Thread-safe.
 */
public class DefaultLockAcquireObservationConvention implements ObservationConvention<LockAcquireContext> {

	/**
	 * Creates the default convention; it holds no state.
	 */
	public DefaultLockAcquireObservationConvention() {
	}

	/** Name of the observation, and so of its timer and span. */
	public static final String NAME = "distributed.lock.acquire";

	/** High-cardinality key of the full lock key. */
	public static final String KEY = "lock.key";

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(LockAcquireContext context) {
		return "lock " + LockTags.lockName(context.getKey());
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(LockAcquireContext context) {
		return KeyValues.of(LockTags.LOCK, LockTags.lockName(context.getKey()), LockTags.TYPE,
				LockTags.typeName(context.getType(), context.getPermits()), LockTags.OUTCOME,
				LockTags.outcomeName(context.getOutcome()));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(LockAcquireContext context) {
		return KeyValues.of(KEY, context.getKey());
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		return context instanceof LockAcquireContext;
	}

}
