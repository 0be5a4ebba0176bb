package io.github.distributedlock.autoconfigure;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.aop.InvalidLockAnnotationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A key expression that reads a parameter by name ({@code #order}) from a class compiled without
 * {@code -parameters} fails the startup with a report naming the fix, instead of every call failing with
 * "evaluated to null". The classes are compiled here, with and without {@code -parameters}.
 */
class ParameterNamesStartupTests {

	private static final String SOURCE = """
			package compiled;

			import io.github.distributedlock.annotation.DistributedLock;

			public class PaymentService {

				public record Order(String id) {
				}

				@DistributedLock(name = "order", key = "%s")
				public String pay(Order order) {
					return "paid " + order.id();
				}

			}
			""";

	@TempDir
	Path directory;

	private final LockAnnotationFailureAnalyzer analyzer = new LockAnnotationFailureAnalyzer();

	private ApplicationContextRunner runner(Class<?> service) {
		return new ApplicationContextRunner()
			.withClassLoader(service.getClassLoader())
			.withConfiguration(AutoConfigurations.of(LocalLockAutoConfiguration.class))
			.withPropertyValues("distributed-lock.store=local")
			.withBean("paymentService", service);
	}

	@Test
	void aKeyNamingAParameterFailsTheStartupWhenTheNamesWereNotCompiledIn() throws Exception {
		runner(compile("#order.id", false)).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).isInstanceOf(InvalidLockAnnotationException.class);
			FailureAnalysis analysis = this.analyzer.analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("PaymentService.pay(Order)")
				.contains("bean 'paymentService'")
				.contains("Value: \"#order.id\"")
				.contains("compiled without -parameters");
			assertThat(analysis.getAction()).contains("-parameters").contains("#p0");
		});
	}

	@Test
	void theSameClassCompiledWithParameterNamesStarts() throws Exception {
		runner(compile("#order.id", true)).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void argumentsByPositionNeedNoParameterNames() throws Exception {
		runner(compile("#p0.id", false)).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void aNameThatIsNoParameterFailsTheStartup() throws Exception {
		runner(compile("#ordr.id", true)).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(this.analyzer.analyze(context.getStartupFailure()).getDescription())
				.contains("#ordr is no parameter of the method")
				.contains("its parameters are order");
		});
	}

	@Test
	void anArgumentPositionBeyondTheParametersFailsTheStartup() throws Exception {
		runner(compile("#p1", false)).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(this.analyzer.analyze(context.getStartupFailure()).getDescription())
				.contains("#p1 is argument 1, but the method has 1 parameter");
		});
	}

	/** Compiles the service with the key expression, and loads it in a class loader of its own. */
	private Class<?> compile(String key, boolean parameters) throws IOException, ClassNotFoundException {
		Path sources = Files.createDirectories(this.directory.resolve("src/compiled"));
		Path source = Files.writeString(sources.resolve("PaymentService.java"), SOURCE.formatted(key));
		Path classes = Files.createDirectories(this.directory.resolve("classes"));
		String annotations = Path.of(DistributedLock.class.getProtectionDomain().getCodeSource().getLocation().getPath())
			.toString();
		List<String> arguments = new ArrayList<>(List.of("-d", classes.toString(), "-cp", annotations));
		if (parameters) {
			arguments.add("-parameters");
		}
		arguments.add(source.toString());
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		assertThat(compiler.run(null, null, null, arguments.toArray(String[]::new))).as("javac exit code").isZero();
		URLClassLoader loader = new URLClassLoader(new URL[] { classes.toUri().toURL() }, getClass().getClassLoader());
		return loader.loadClass("compiled.PaymentService");
	}

}
