package io.github.distributedlock.sample;

import java.util.Arrays;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * The sample application. Without arguments it takes part in today's lottery draw, which runs once across
 * every instance started at the same time, and exits. With {@code --demo} it runs several simulated
 * instances against Redis and prints what the locks change (see {@link Demo}); with {@code --demo --serve} its
 * first instance then stays up with Actuator on {@code server.port} (8080) until Ctrl-C: the
 * {@code distributedlocks} endpoint, the {@code distributedLock} health and the {@code distributed.lock.*}
 * meters of the demo's locks.
 * <p>
 * It uses the Redis at {@code spring.data.redis.host}/{@code port} (localhost:6379 by default); when
 * nothing answers there it starts an embedded one and says so.
 */
@SpringBootApplication
public class SampleApplication {

	public static void main(String[] args) throws Exception {
		try (EmbeddedRedisFallback redis = EmbeddedRedisFallback.ensureRedis(args)) {
			String[] effectiveArgs = redis.withConnectionArguments(args);
			if (Arrays.asList(args).contains("--demo")) {
				Demo.run(effectiveArgs, System.out);
			}
			else {
				new SpringApplicationBuilder(SampleApplication.class).web(WebApplicationType.NONE)
					.run(effectiveArgs)
					.close();
			}
		}
	}

}
