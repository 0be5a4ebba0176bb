package io.github.distributedlock.redis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.github.distributedlock.core.DistributedLockException;


/**
 * The Redis side of lease renewal, for every lock type: one hold with its type's renewal script, or many in one
 * round trip, the reentrant locks in batches of one script each ({@code reentrant_renew_all.lua}), the others
 * pipelined. Thread-safe.
 */
final class LeaseRenewalScripts {

	/**
	 * Most reentrant locks one renewal script extends: a script blocks Redis while it runs, and this many take
	 * well under a millisecond.
	 */
	static final int BATCH = 200;

	private final ScriptExecutor scripts;

	LeaseRenewalScripts(ScriptExecutor scripts) {
		this.scripts = scripts;
	}

	/**
	 * Extends a hold's lease to its full length (never shortens it).
	 * @return 1 when extended, 0 when the owner no longer holds the lock; failed with a
	 * {@link DistributedLockException} if Redis could not run it
	 */
	CompletableFuture<Long> renew(Hold hold) {
		return this.scripts.runAsync(hold.kind().renewal(), hold.redisKey(), "renew", hold.key(), hold.owner(),
				Long.toString(hold.leaseMillis()));
	}

	/**
	 * Extends several holds' leases in one round trip: the reentrant ones with one script per batch of up to
	 * {@link #BATCH} locks ({@code reentrant_renew_all.lua}; in Redis Cluster one batch per slot, as a script's
	 * keys must share one), the others with one script each, all pipelined.
	 * @return for each hold, in order, a future of 1 when extended, 0 when no longer held, -1 (reentrant) when its
	 * key was overwritten with another type, or the failure, which completes when that hold's reply came (never
	 * exceptionally)
	 */
	List<CompletableFuture<ScriptExecutor.Outcome>> renewAll(List<Hold> holds) {
		List<CompletableFuture<ScriptExecutor.Outcome>> outcomes = new ArrayList<>(holds.size());
		List<ScriptExecutor.Call> singles = new ArrayList<>();
		List<CompletableFuture<ScriptExecutor.Outcome>> singleOutcomes = new ArrayList<>();
		Map<Integer, List<Integer>> batches = new HashMap<>();
		boolean cluster = this.scripts.isCluster();
		for (int i = 0; i < holds.size(); i++) {
			Hold hold = holds.get(i);
			CompletableFuture<ScriptExecutor.Outcome> outcome = new CompletableFuture<>();
			outcomes.add(outcome);
			if (hold.kind().renewsInBatches()) {
				int slot = cluster ? ClusterSlots.of(hold.redisKey()) : 0;
				batches.computeIfAbsent(slot, (s) -> new ArrayList<>()).add(i);
			}
			else {
				singles.add(new ScriptExecutor.Call(hold.kind().renewal(), hold.redisKey(), "renew", hold.key(), hold.owner(),
						Long.toString(hold.leaseMillis())));
				singleOutcomes.add(outcome);
			}
		}
		for (List<Integer> batch : batches.values()) {
			for (int from = 0; from < batch.size(); from += BATCH) {
				renewReentrant(holds, batch.subList(from, Math.min(batch.size(), from + BATCH)), outcomes);
			}
		}
		if (!singles.isEmpty()) {
			List<CompletableFuture<ScriptExecutor.Outcome>> replies = this.scripts.runAllAsync(singles);
			for (int i = 0; i < replies.size(); i++) {
				CompletableFuture<ScriptExecutor.Outcome> outcome = singleOutcomes.get(i);
				replies.get(i).thenAccept(outcome::complete);
			}
		}
		return outcomes;
	}

	/** Renews reentrant holds (of one slot) with one script, and completes their outcomes from its reply. */
	private void renewReentrant(List<Hold> holds, List<Integer> batch,
			List<CompletableFuture<ScriptExecutor.Outcome>> outcomes) {
		List<String> keys = new ArrayList<>(batch.size());
		List<String> args = new ArrayList<>(batch.size() * 2);
		for (int i : batch) {
			keys.add(holds.get(i).redisKey());
			args.add(holds.get(i).owner());
		}
		for (int i : batch) {
			args.add(Long.toString(holds.get(i).leaseMillis()));
		}
		CompletableFuture<List<?>> renewed;
		try {
			renewed = this.scripts.runOnKeysAsync(LockScripts.REENTRANT_RENEW_ALL, "renew", keys, args);
		}
		catch (RuntimeException ex) {
			renewed = CompletableFuture.failedFuture(ex);
		}
		renewed.whenComplete((results, ex) -> {
			DistributedLockException failure = (ex != null) ? asFailure(ex) : null;
			for (int j = 0; j < batch.size(); j++) {
				Object result = (results != null) ? results.get(j) : null;
				outcomes.get(batch.get(j))
					.complete((result instanceof Long value) ? new ScriptExecutor.Outcome(value, null)
							: new ScriptExecutor.Outcome(0, (failure != null) ? failure
									: new DistributedLockException("Could not renew lock '" + holds.get(batch.get(j)).key()
											+ "': Redis returned no result for it")));
			}
		});
	}

	private static DistributedLockException asFailure(Throwable ex) {
		RuntimeException failure = ScriptExecutor.unwrap(ex);
		return (failure instanceof DistributedLockException lock) ? lock
				: new DistributedLockException("Could not renew locks in Redis: " + failure.getMessage(), failure);
	}

}
