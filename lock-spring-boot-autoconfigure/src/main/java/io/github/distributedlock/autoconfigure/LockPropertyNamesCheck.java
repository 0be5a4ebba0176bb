package io.github.distributedlock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.util.StreamUtils;

/**
 * Checks the {@code distributed-lock.*} keys of the environment before any bean is created. A key that is no
 * property of the library (a typo such as {@code distributed-lock.leese}) would be ignored silently, and the
 * default would apply: it fails the startup instead, reported with the closest valid key. The valid keys are
 * those of the configuration metadata ({@code META-INF/spring-configuration-metadata.json}, which the
 * configuration processor writes from the properties classes), so every documented key is valid.
 * <p>
 * Also a WARN for a {@code lease} or {@code acquire-timeout} given as a bare number below 1000: a bare number is
 * milliseconds, so {@code lease: 300} is 300 ms, which is rarely what was meant.
 */
final class LockPropertyNamesCheck implements BeanFactoryPostProcessor {

	static final String PREFIX = "distributed-lock";

	private static final String METADATA = "META-INF/spring-configuration-metadata.json";

	private static final Pattern BARE_NUMBER = Pattern.compile("\\s*\\d+\\s*");

	private static final Log logger = LogFactory.getLog(LockPropertyNamesCheck.class);

	private final ConfigurableEnvironment environment;

	LockPropertyNamesCheck(ConfigurableEnvironment environment) {
		this.environment = environment;
	}

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
		Map<String, Boolean> valid = validKeys(beanFactory.getBeanClassLoader());
		if (!valid.isEmpty()) {
			checkNames(valid);
		}
		warnIfBareSmallNumber("lease");
		warnIfBareSmallNumber("acquire-timeout");
	}

	private void checkNames(Map<String, Boolean> valid) {
		ConfigurationPropertyName prefix = ConfigurationPropertyName.of(PREFIX);
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
			if (!(source instanceof IterableConfigurationPropertySource iterable)) {
				continue;
			}
			for (ConfigurationPropertyName name : (Iterable<ConfigurationPropertyName>) iterable.stream()::iterator) {
				if (prefix.isAncestorOf(name) && !isValid(name, valid)) {
					throw unknown(name, source.getConfigurationProperty(name), valid);
				}
			}
		}
	}

	private static boolean isValid(ConfigurationPropertyName name, Map<String, Boolean> valid) {
		for (Map.Entry<String, Boolean> key : valid.entrySet()) {
			ConfigurationPropertyName known = ConfigurationPropertyName.of(key.getKey());
			if (known.equals(name) || (key.getValue() && known.isAncestorOf(name))) {
				return true;
			}
		}
		return false;
	}

	private static UnknownLockPropertyException unknown(ConfigurationPropertyName name,
			@Nullable ConfigurationProperty property, Map<String, Boolean> valid) {
		String origin = (property != null && property.getOrigin() != null) ? property.getOrigin().toString() : null;
		return new UnknownLockPropertyException(name.toString(), (property != null) ? property.getValue() : "",
				origin, name + " is no property of the distributed locks, so it would be ignored and the default "
						+ "would apply",
				"Did you mean " + closest(name.toString(), valid.keySet()) + "? Correct the key, or remove it. The "
						+ "keys under " + PREFIX + ". are: " + String.join(", ", valid.keySet()) + ".");
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

	/** The documented keys under the prefix, each with whether it is a map (whose entries are keys too). */
	private static Map<String, Boolean> validKeys(@Nullable ClassLoader classLoader) {
		Map<String, Boolean> keys = new LinkedHashMap<>();
		try {
			ClassLoader loader = (classLoader != null) ? classLoader : LockPropertyNamesCheck.class.getClassLoader();
			for (Enumeration<URL> resources = loader.getResources(METADATA); resources.hasMoreElements();) {
				readKeys(resources.nextElement(), keys);
			}
		}
		catch (IOException ex) {
			logger.debug("Not checking the " + PREFIX + ".* keys: cannot read " + METADATA, ex);
			return Map.of();
		}
		return keys;
	}

	private static void readKeys(URL resource, Map<String, Boolean> keys) throws IOException {
		String json;
		try (InputStream in = resource.openStream()) {
			json = StreamUtils.copyToString(in, StandardCharsets.UTF_8);
		}
		Object properties = JsonParserFactory.getJsonParser().parseMap(json).get("properties");
		if (!(properties instanceof List<?> list)) {
			return;
		}
		for (Object entry : list) {
			if (entry instanceof Map<?, ?> property && property.get("name") instanceof String name
					&& name.startsWith(PREFIX + ".")) {
				Object type = property.get("type");
				keys.put(name, type instanceof String typeName && typeName.startsWith("java.util.Map"));
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
