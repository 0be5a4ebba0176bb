package io.github.distributedlock.redis;

import io.github.distributedlock.test.Owners;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lock holder paused past its lease (SIGSTOP, as a long GC pause would): another instance takes the lock,
 * and when the paused holder resumes, its fencing token makes the protected resource refuse its late write.
 */
class PausedHolderTests {

	@Test
	void aHolderPausedPastItsLeaseHasItsLateWriteRefusedByTheFencingToken() throws Exception {
		String key = "paused:" + UUID.randomUUID();
		String registerKey = "register:" + UUID.randomUUID();
		FencedRegister register = new FencedRegister(SharedRedis.redis(), registerKey);
		String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
		Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
				PausableWriterMain.class.getName(), Integer.toString(SharedRedis.server().port()), key, registerKey,
				"1000")
			.redirectErrorStream(true)
			.start();
		RedisLockClient client = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");
		try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
				Writer in = new OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8)) {
			long pausedToken = Long.parseLong(lineStartingWith(out, "HELD ").substring(5));
			signal("STOP", child.pid());
			log("kill -STOP " + child.pid() + ": the holder with token " + pausedToken + " is paused past its 1 s lease");
			DistributedLockTemplate template = new DistributedLockTemplate(client, Duration.ofSeconds(30),
					Duration.ofSeconds(10));
			// the paused holder renews nothing: its 1 s lease runs out, and this instance takes the lock
			try (LockHandle second = template.acquire(LockDefinition.of(key))) {
				assertThat(second.fencingToken()).isGreaterThan(pausedToken);
				assertThat(register.write(second.fencingToken(), "second holder")).isTrue();
				log("another instance acquired the lock with token " + second.fencingToken()
						+ " and wrote 'second holder' (register fence now " + register.fence() + ")");
				signal("CONT", child.pid());
				log("kill -CONT " + child.pid() + ": the paused holder resumes and writes with token " + pausedToken);
				in.write("WRITE\n");
				in.flush();
				assertThat(lineStartingWith(out, "WRITE ")).isEqualTo("WRITE refused");
				assertThat(lineStartingWith(out, "LOST ")).contains(key);
				// the late release left the second holder's lock alone
				assertThat(SharedRedis.redis().opsForHash().hasKey("lock:" + key,
						Owners.current(client))).isTrue();
				second.checkHeld();
				log("register: value '" + register.value() + "', fence " + register.fence()
						+ "; the second holder still holds its lock");
				System.out.println("Paused holder: token " + pausedToken + ", second holder: token "
						+ second.fencingToken() + "; the paused holder's late write was refused");
			}
			assertThat(register.value()).isEqualTo("second holder");
			assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			signal("CONT", child.pid());
			child.destroyForcibly();
			client.close();
			SharedRedis.redis().delete(registerKey);
		}
	}

	private static String lineStartingWith(BufferedReader out, String prefix) throws Exception {
		StringBuilder printed = new StringBuilder();
		String line;
		while ((line = out.readLine()) != null) {
			log("child> " + line);
			if (line.startsWith(prefix)) {
				return line;
			}
			printed.append(line).append('\n');
		}
		throw new IllegalStateException("The child ended before printing '" + prefix + "'; it printed:\n" + printed);
	}

	/** Prints a step of the test, and what the child printed, so its output shows the sequence. */
	private static void log(String line) {
		System.out.println("[paused holder] " + line);
	}

	private static void signal(String signal, long pid) throws Exception {
		new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start().waitFor(10, TimeUnit.SECONDS);
	}

}
