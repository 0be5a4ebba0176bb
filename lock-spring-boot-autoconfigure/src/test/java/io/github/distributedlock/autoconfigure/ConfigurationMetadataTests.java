package io.github.distributedlock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.boot.json.JsonParserFactory;
import org.springframework.core.io.ClassPathResource;
import org.springframework.util.StreamUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration metadata that IDEs read: every property the library reads is in it, with a description.
 */
class ConfigurationMetadataTests {

	@Test
	void theHealthContributorSwitchIsDocumented() throws IOException {
		assertThat(property("management.health.distributedlock.enabled")).containsEntry("type", "java.lang.Boolean")
			.containsEntry("defaultValue", true);
	}

	@Test
	void theDurationsSayThatABareNumberIsMilliseconds() throws IOException {
		for (String name : List.of("distributed-lock.lease", "distributed-lock.acquire-timeout")) {
			assertThat((String) property(name).get("description")).as(name)
				.contains("A bare number means milliseconds");
		}
	}

	@Test
	void theStartupCheckKnowsExactlyTheDocumentedKeys() throws IOException {
		// a group missing from DistributedLockProperties would have its documented keys refused at startup
		List<String> documented = properties().stream()
			.map((property) -> (String) property.get("name"))
			.filter((name) -> name.startsWith(LockPropertyNamesCheck.PREFIX + "."))
			.sorted()
			.toList();
		assertThat(LockPropertyNamesCheck.validKeys(LockPropertyNamesCheck.PREFIX)).isEqualTo(documented);
	}

	private static Map<String, Object> property(String name) throws IOException {
		return properties().stream()
			.filter((property) -> name.equals(property.get("name")))
			.findFirst()
			.orElseThrow(() -> new AssertionError(name + " is not in the configuration metadata"));
	}

	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> properties() throws IOException {
		String json;
		try (InputStream in = new ClassPathResource("META-INF/spring-configuration-metadata.json").getInputStream()) {
			json = StreamUtils.copyToString(in, StandardCharsets.UTF_8);
		}
		List<?> properties = (List<?>) JsonParserFactory.getJsonParser().parseMap(json).get("properties");
		return properties.stream().map((property) -> (Map<String, Object>) property).toList();
	}

}
