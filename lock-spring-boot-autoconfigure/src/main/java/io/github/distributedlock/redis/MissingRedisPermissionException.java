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

	/**
	 * Creates the exception.
	 * @param refusals what Redis refused, each the operation and Redis's own words, such as
	 * {@code "publish on channel 'lock:__released': ... can't publish to the channel ..."}
	 * @param aclRule the rule to give the user (see {@link RedisPermissions#aclRule(String)})
	 */
	public MissingRedisPermissionException(List<String> refusals, String aclRule) {
		super("The Redis user lacks permissions the distributed locks need: " + String.join("; ", refusals));
		this.refusals = List.copyOf(refusals);
		this.aclRule = aclRule;
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
