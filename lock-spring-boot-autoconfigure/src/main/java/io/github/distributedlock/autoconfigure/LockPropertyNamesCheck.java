package io.github.distributedlock.autoconfigure;

import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.BeanUtils;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Checks the {@code distributed-lock.*} keys of the environment before any bean is created. A key that is no
 * property of the library (a typo such as {@code distributed-lock.leese}) would be ignored silently, and the
 * default would apply: it fails the startup instead, reported with where it was set and the closest valid key.
 * Which keys are valid is what Spring Boot's binder finds when it binds {@link DistributedLockProperties}, with
 * its nested groups, with a {@link NoUnboundElementsBindHandler}, the handler behind
 * {@code @ConfigurationProperties(ignoreUnknownFields = false)}: so the check reads no file and depends on no JSON
 * library, and a key is valid exactly when the binding uses it. A fresh instance is bound per check and thrown
 * away. A value the binding cannot use (such as
 * {@code lease: abc}) is left to the binding of the properties bean, which reports it.
 * <p>
 * Also a WARN for a {@code lease} or {@code acquire-timeout} given as a bare number below 1000: a bare number is
 * milliseconds, so {@code lease: 300} is 300 ms, which is rarely what was meant.
 */
final class LockPropertyNamesCheck implements BeanFactoryPostProcessor {

	static final String PREFIX = "distributed-lock";

	private static final Pattern BARE_NUMBER = Pattern.compile("\\s*\\d+\\s*");

	private static final Log logger = LogFactory.getLog(LockPropertyNamesCheck.class);

	private final ConfigurableEnvironment environment;

	LockPropertyNamesCheck(ConfigurableEnvironment environment) {
		this.environment = environment;
	}

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
		checkNames();
		warnIfBareSmallNumber("lease");
		warnIfBareSmallNumber("acquire-timeout");
	}

	private void checkNames() {
		try {
			Binder.get(this.environment)
				.bind(PREFIX, Bindable.ofInstance(new DistributedLockProperties()),
						new NoUnboundElementsBindHandler(BindHandler.DEFAULT));
		}
		catch (BindException ex) {
			if (ex.getCause() instanceof UnboundConfigurationPropertiesException unbound) {
				throw unknown(unbound.getUnboundProperties().iterator().next());
			}
			// a value the binding cannot use: the properties bean's own binding reports it, with its property
			logger.debug("Not checking the " + PREFIX + ".* keys: a value does not bind", ex);
		}
	}

	private static UnknownLockPropertyException unknown(ConfigurationProperty property) {
		String name = property.getName().toString();
		String origin = (property.getOrigin() != null) ? property.getOrigin().toString() : null;
		List<String> valid = validKeys(PREFIX);
		return new UnknownLockPropertyException(name, property.getValue(), origin, name + " is no property of the "
				+ "distributed locks, so it would be ignored and the default would apply",
				"Did you mean " + closest(name, valid) + "? Correct the key, or remove it. The keys under " + PREFIX
						+ ". are: " + String.join(", ", valid) + ".");
	}

	private void warnIfBareSmallNumber(String property) {
		String key = PREFIX + "." + property;
		String value = this.environment.getProperty(key);
		if (value == null || !BARE_NUMBER.matcher(value).matches()) {
			return;
		}
		long number = Long.parseLong(value.trim());
		if (number > 0 && number < 1000) {
			logger.warn(key + " = " + value.trim() + " is " + number + " milliseconds: a bare number is milliseconds. "
					+ "Write " + number + "ms to keep it and silence this warning, or " + number + "s if seconds were "
					+ "meant.");
		}
	}

	/**
	 * The valid keys under the prefix, in their canonical (kebab-case) form, read from
	 * {@link DistributedLockProperties}: every writable property, and the writable properties of its nested groups
	 * (a read-only property whose type is a class nested in it, such as {@code getCommitGuard()}).
	 * @param prefix the prefix of the keys, {@code distributed-lock}
	 * @return the keys, sorted
	 */
	static List<String> validKeys(String prefix) {
		List<String> keys = new ArrayList<>();
		collect(prefix, DistributedLockProperties.class, keys);
		Collections.sort(keys);
		return keys;
	}

	private static void collect(String prefix, Class<?> type, List<String> keys) {
		for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
			String key = prefix + "." + DataObjectPropertyName.toDashedForm(property.getName());
			if (property.getWriteMethod() != null) {
				keys.add(key);
			}
			else if (property.getReadMethod() != null
					&& property.getPropertyType().getEnclosingClass() == DistributedLockProperties.class) {
				collect(key, property.getPropertyType(), keys);
			}
		}
	}

	/** The valid key with the smallest edit distance to the given one. */
	static String closest(String key, Iterable<String> valid) {
		List<String> candidates = new ArrayList<>();
		valid.forEach(candidates::add);
		return candidates.stream()
			.min(Comparator.comparingInt((String candidate) -> distance(key.toLowerCase(), candidate)))
			.orElse(PREFIX + ".lease");
	}

	private static int distance(String a, String b) {
		int[] previous = new int[b.length() + 1];
		int[] current = new int[b.length() + 1];
		for (int j = 0; j <= b.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= b.length(); j++) {
				int substitution = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
				current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[b.length()];
	}

}
