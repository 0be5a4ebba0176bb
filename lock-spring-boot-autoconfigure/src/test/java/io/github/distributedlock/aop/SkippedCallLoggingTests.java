package io.github.distributedlock.aop;

import java.time.Duration;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.OnLockFailure;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.redis.RedisLockClient;
import io.github.distributedlock.test.LockHolder;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A call skipped by {@code onFailure = SKIP} is logged at DEBUG with the method, the keys and why.
 */
@ExtendWith(OutputCaptureExtension.class)
@SuppressWarnings("try") // a resource that only holds a lock for the block is not referenced in it
class SkippedCallLoggingTests {

	private static final String LOGGER = DistributedLockInterceptor.class.getName();

	private final LoggingSystem loggingSystem = LoggingSystem.get(getClass().getClassLoader());

	private RedisLockClient client;

	private DistributedLockTemplate template;

	private Jobs jobs;

	@BeforeEach
	void setUp() {
		this.client = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");
		this.template = new DistributedLockTemplate(this.client, Duration.ofSeconds(30), Duration.ofSeconds(5));
		ProxyFactory factory = new ProxyFactory(new Jobs());
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new DistributedLockAdvisor(new DistributedLockInterceptor(this.template), 0));
		this.jobs = (Jobs) factory.getProxy();
	}

	@AfterEach
	void tearDown() {
		this.loggingSystem.setLogLevel(LOGGER, null);
		this.client.close();
	}

	@Test
	void aSkippedCallIsLoggedAtDebugWithMethodKeyAndWhy(CapturedOutput output) throws Exception {
		this.loggingSystem.setLogLevel(LOGGER, LogLevel.DEBUG);
		try (LockHolder holder = new LockHolder(this.template.getLock("report:2026-11-23"))) {
			assertThat(this.jobs.report("2026-11-23")).isNull();
		}
		assertThat(output.getOut().lines().filter((line) -> line.contains("Skipped")))
			.singleElement()
			.asString()
			.contains("DEBUG")
			.contains("Jobs.report(String)")
			.contains("'report:2026-11-23'")
			.contains("not acquired within 0ms")
			.contains("onFailure = SKIP");
	}

	@Test
	void aCallThatRanIsNotLoggedAsSkipped(CapturedOutput output) {
		this.loggingSystem.setLogLevel(LOGGER, LogLevel.DEBUG);
		assertThat(this.jobs.report("2026-11-24")).isEqualTo("report 2026-11-24");
		assertThat(output).doesNotContain("Skipped");
	}

	@Test
	void nothingIsLoggedAboveDebug(CapturedOutput output) throws Exception {
		this.loggingSystem.setLogLevel(LOGGER, LogLevel.INFO);
		try (LockHolder holder = new LockHolder(this.template.getLock("report:2026-11-25"))) {
			assertThat(this.jobs.report("2026-11-25")).isNull();
		}
		assertThat(output).doesNotContain("Skipped");
	}

	static class Jobs {

		@DistributedLock(name = "report", key = "#day", acquireTimeout = "0", onFailure = OnLockFailure.SKIP)
		public String report(String day) {
			return "report " + day;
		}

	}

}
