package probe;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;

import io.github.distributedlock.annotation.DistributedLock;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Runs one uncontended {@code @DistributedLock} call under the JaCoCo agent and writes the coverage of that call
 * alone: the application starts, a first call warms the caches (SpEL, scripts, the client's first connection),
 * the agent's counters are reset, the second call runs, and its execution data is written to the file named by
 * the first argument. The second argument is the Redis port. Used by {@code structure.sh}, for any checkout of the
 * library (it needs only the annotation, which has not changed).
 */
@SpringBootApplication
public class OneCallProbe {

	public static void main(String[] args) throws Exception {
		try (ConfigurableApplicationContext context = new SpringApplication(OneCallProbe.class).run(
				"--spring.data.redis.port=" + args[1], "--spring.main.banner-mode=off",
				"--logging.level.root=WARN")) {
			Orders orders = context.getBean(Orders.class);
			orders.ship("warm-up");
			Object agent = Class.forName("org.jacoco.agent.rt.RT").getMethod("getAgent").invoke(null);
			Method reset = agent.getClass().getMethod("reset");
			Method data = agent.getClass().getMethod("getExecutionData", boolean.class);
			reset.invoke(agent);
			orders.ship("order-1");
			Files.write(Path.of(args[0]), (byte[]) data.invoke(agent, false));
		}
	}

	@Bean
	Orders orders() {
		return new Orders();
	}

	public static class Orders {

		@DistributedLock(key = "#id")
		public void ship(String id) {
		}

	}

}
