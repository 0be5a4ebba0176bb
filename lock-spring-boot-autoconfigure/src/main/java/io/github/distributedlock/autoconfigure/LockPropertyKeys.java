package io.github.distributedlock.autoconfigure;

import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;

/**
 * Every properties class of the library under {@code distributed-lock}, gathered in one bean so that Spring Boot's
 * binder can tell which keys of the environment none of them binds (see {@link LockPropertyNamesCheck}), and the
 * valid keys, read from those classes, for the report. A new properties class of the library (under a nested
 * prefix such as {@code distributed-lock.commit-guard}) is added here as a getter; nothing else lists keys.
 * <p>
 * A fresh instance per check, bound once and thrown away; not for sharing between threads.
 */
final class LockPropertyKeys extends DistributedLockProperties {

	private final DistributedLockCommitGuardProperties commitGuard = new DistributedLockCommitGuardProperties();

	private final DistributedLockEndpointProperties endpoint = new DistributedLockEndpointProperties();

	private final DistributedLockRedlockProperties redlock = new DistributedLockRedlockProperties();

	/**
	 * Returns the commit guard's properties, bound at {@code distributed-lock.commit-guard}.
	 * @return the properties this bean binds into
	 */
	public DistributedLockCommitGuardProperties getCommitGuard() {
		return this.commitGuard;
	}

	/**
	 * Returns the endpoint's properties, bound at {@code distributed-lock.endpoint}.
	 * @return the properties this bean binds into
	 */
	public DistributedLockEndpointProperties getEndpoint() {
		return this.endpoint;
	}

	/**
	 * Returns the Redlock store's properties, bound at {@code distributed-lock.redlock}.
	 * @return the properties this bean binds into
	 */
	public DistributedLockRedlockProperties getRedlock() {
		return this.redlock;
	}

	/**
	 * The valid keys under the prefix, in their canonical (kebab-case) form, read from the properties classes:
	 * every writable property, and the writable properties of the nested properties classes.
	 * @param prefix the prefix of the keys, {@code distributed-lock}
	 * @return the keys, sorted
	 */
	static List<String> validKeys(String prefix) {
		List<String> keys = new ArrayList<>();
		collect(prefix, LockPropertyKeys.class, keys);
		Collections.sort(keys);
		return keys;
	}

	private static void collect(String prefix, Class<?> type, List<String> keys) {
		for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
			String key = prefix + "." + DataObjectPropertyName.toDashedForm(property.getName());
			if (property.getWriteMethod() != null) {
				keys.add(key);
			}
			else if (property.getReadMethod() != null && isLibraryProperties(property.getPropertyType())) {
				collect(key, property.getPropertyType(), keys);
			}
		}
	}

	private static boolean isLibraryProperties(Class<?> type) {
		return type.getPackageName().equals(LockPropertyKeys.class.getPackageName())
				&& type.getSimpleName().endsWith("Properties");
	}

}
