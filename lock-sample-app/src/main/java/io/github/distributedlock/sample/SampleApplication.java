package io.github.distributedlock.sample;

import java.util.Arrays;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The sample application. Without arguments it takes part in today's lottery draw, which runs once across
 * every instance started at the same time, and exits. With {@code --demo} it runs several simulated
 * instances against Redis and prints what the locks change (see {@link Demo}).
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
				SpringApplication.run(SampleApplication.class, effectiveArgs).close();
			}
		}
	}

}
