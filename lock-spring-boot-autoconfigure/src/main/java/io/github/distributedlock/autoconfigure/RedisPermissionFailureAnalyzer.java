package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.redis.MissingRedisPermissionException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a startup that failed because the Redis user lacks a permission the locks need: each thing Redis
 * refused in its own words, and the ACL rule to give the user. Registered in {@code META-INF/spring.factories}.
 */
final class RedisPermissionFailureAnalyzer extends AbstractFailureAnalyzer<MissingRedisPermissionException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, MissingRedisPermissionException cause) {
		StringBuilder description = new StringBuilder(String.format(
				"%s lacks permissions the distributed locks need. Redis refused:%n%n", cause.getUser()));
		for (String refusal : cause.getRefusals()) {
			description.append(String.format("    - %s%n", refusal));
		}
		String action = String.format("Give the Redis user the ACL rule the locks need (keys and channels under the "
				+ "key prefix, the commands of the lock scripts and of the startup checks, and no others):%n%n"
				+ "    ACL SETUSER <user> %s%n%n"
				+ "or the same rule in your managed Redis service's user or access-string settings; see "
				+ "docs/managed-redis.md.", cause.getAclRule());
		return new FailureAnalysis(description.toString(), action, cause);
	}

}
