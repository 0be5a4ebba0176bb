package io.github.distributedlock.smoke;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;

/**
 * What the module's repackaged jar ({@code smoke.jar}) carries: the class path the application runs with.
 */
public final class RepackagedJar {

	private static final String LIBRARIES = "BOOT-INF/lib/";

	private RepackagedJar() {
	}

	/**
	 * Returns the file names of the libraries nested in the jar.
	 * @return for instance {@code lettuce-core-6.8.1.RELEASE.jar}, sorted
	 * @throws UncheckedIOException if the jar cannot be read
	 */
	public static List<String> libraries() {
		try (JarFile jar = new JarFile(Path.of(System.getProperty("smoke.jar")).toFile())) {
			return jar.stream()
				.map((entry) -> entry.getName())
				.filter((name) -> name.startsWith(LIBRARIES) && name.endsWith(".jar"))
				.map((name) -> name.substring(LIBRARIES.length()))
				.sorted()
				.toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
