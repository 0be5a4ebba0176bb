package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.redis.EvictingRedisException;
import io.github.distributedlock.redis.EvictionCheck;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a startup that failed because a Redis server that would hold locks may evict their keys: the server,
 * its limit and policy, why that grants a lock twice, and the fixes (the policy {@code noeviction}, or a Redis of
 * the locks' own; or, accepting the risk, {@value EvictionCheck#ALLOW_PROPERTY}). Registered in
 * {@code META-INF/spring.factories}.
 */
final class EvictingRedisFailureAnalyzer extends AbstractFailureAnalyzer<EvictingRedisException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, EvictingRedisException cause) {
		String description = String.format("%s.%n%nWhen that server runs short of memory it deletes keys to make room: "
				+ "a lock key it deletes is free, and the lock is granted to a second holder while the first still "
				+ "believes it holds it (the first learns it at its next renewal at best). Only maxmemory-policy "
				+ "noeviction (writes then fail with an OOM error instead) or no maxmemory limit keeps every lock.",
				cause.getMessage());
		String action = String.format("Set maxmemory-policy noeviction on %s (CONFIG SET maxmemory-policy noeviction, "
				+ "and the same in redis.conf or in the managed service's parameter group), or give the locks a "
				+ "Redis of their own that does not evict (data cached with TTLs is what usually needs an evicting "
				+ "policy).%n%nTo start anyway, accepting that a lock can be granted twice under memory pressure, "
				+ "set %s=true (see docs/faults.md).", cause.getServer(), EvictionCheck.ALLOW_PROPERTY);
		return new FailureAnalysis(description, action, cause);
	}

}
