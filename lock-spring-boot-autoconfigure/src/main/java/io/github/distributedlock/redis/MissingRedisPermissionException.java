package io.github.distributedlock.redis;

import java.util.List;

import io.github.distributedlock.core.DistributedLockException;

/**
 * Thrown at startup when the Redis user lacks a permission the locks need (see {@link RedisAccessProbe}): names
 * what Redis refused and the ACL rule that gives the user what the locks need.
 */
public class MissingRedisPermissionException extends DistributedLockException {

	private static final long serialVersionUID = 1L;

	/** What Redis refused, each the operation and Redis's own words. */
	private final List<String> refusals;

	/** The ACL rule that gives the user what the locks need. */
	private final String aclRule;

	/** Which user, and where it is configured. */
	private final String user;

	/**
	 * Creates the exception for the user of the application's Redis ({@code spring.data.redis.username}).
	 * @param refusals what Redis refused, each the operation and Redis's own words, such as
	 * {@code "publish on channel 'lock:__released': ... can't publish to the channel ..."}
	 * @param aclRule the rule to give the user (see {@link RedisPermissions#aclRule(String)})
	 */
	public MissingRedisPermissionException(List<String> refusals, String aclRule) {
		this("The Redis user (spring.data.redis.username)", refusals, aclRule);
	}

	/**
	 * Creates the exception for a user configured elsewhere, such as the Redlock nodes' users.
	 * @param user which user, and where it is configured, such as
	 * {@code "The Redis user (spring.data.redis.username)"}
	 * @param refusals what Redis refused, each the operation and Redis's own words
	 * @param aclRule the rule to give the user (see {@link RedisPermissions#redlockAclRule(String)})
	 */
	public MissingRedisPermissionException(String user, List<String> refusals, String aclRule) {
		super(user + " lacks permissions the distributed locks need: " + String.join("; ", refusals));
		this.user = user;
		this.refusals = List.copyOf(refusals);
		this.aclRule = aclRule;
	}

	/**
	 * Returns which user lacks the permissions, and where it is configured.
	 * @return such as {@code "The Redis user (spring.data.redis.username)"}
	 */
	public String getUser() {
		return this.user;
	}

	/**
	 * Returns what Redis refused.
	 * @return the refusals, each the operation and Redis's own words; not empty
	 */
	public List<String> getRefusals() {
		return this.refusals;
	}

	/**
	 * Returns the ACL rule that gives the user what the locks need.
	 * @return the rule, such as {@code ~lock:* &lock:* -@all +evalsha ...}
	 */
	public String getAclRule() {
		return this.aclRule;
	}

}
