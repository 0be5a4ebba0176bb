package io.github.distributedlock.metrics;

import java.util.Locale;

import io.github.distributedlock.annotation.LockType;

/**
 * The tag values of the lock meters and observations, in one place so that every meter agrees. Tag
 * {@code lock} is the lock's name, never its key value, so that its cardinality stays bounded: 10,000 order
 * ids make one value.
 */
public final class LockTags {

	/** Tag of the lock name. */
	public static final String LOCK = "lock";

	/** Tag of the lock type: {@code reentrant}, {@code read}, {@code write} or {@code semaphore}. */
	public static final String TYPE = "type";

	/** Tag of how an acquisition or a hold ended. */
	public static final String OUTCOME = "outcome";

	private LockTags() {
	}

	/**
	 * Returns the name of a lock: its key up to the first {@code :}, which is the annotation's {@code name}
	 * for {@code @DistributedLock} locks (their key is {@code <name>:<key value>}), and the prefix of a
	 * programmatic key such as {@code "invoice:42"}; the whole key when it has no {@code :}.
	 * @param key the lock key
	 * @return the lock name
	 */
	public static String lockName(String key) {
		int colon = key.indexOf(':');
		return (colon < 0) ? key : key.substring(0, colon);
	}

	/**
	 * Returns the tag value of a lock type.
	 * @param type the lock type
	 * @return {@code reentrant}, {@code read} or {@code write}
	 */
	public static String typeName(LockType type) {
		return type.nameWith(1);
	}

	/**
	 * Returns the tag value of a lock type and permit count: {@code semaphore} for more than one permit, else
	 * the type's ({@link #typeName(LockType)}).
	 * @param type the lock type
	 * @param permits the permit count of the key
	 * @return {@code reentrant}, {@code read}, {@code write} or {@code semaphore}
	 */
	public static String typeName(LockType type, int permits) {
		return type.nameWith(permits);
	}

	/**
	 * Returns the tag value of an outcome: its name in lower case.
	 * @param outcome the outcome enum constant
	 * @return such as {@code acquired}
	 */
	static String outcomeName(Enum<?> outcome) {
		return outcome.name().toLowerCase(Locale.ROOT);
	}

}
