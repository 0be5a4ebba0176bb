package io.github.distributedlock.smoke;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Files of the project checkout that the smoke tests read, such as README.md and docs/monitoring/: found from the
 * working directory of the test (a module under {@code lock-smoke-tests}) upwards. Thread-safe.
 */
public final class ProjectFiles {

	private ProjectFiles() {
	}

	/**
	 * Returns the project's root directory: the nearest one above the working directory that has a README.md next
	 * to {@code lock-smoke-tests}.
	 * @return the directory, absolute
	 * @throws IllegalStateException if there is none
	 */
	public static Path root() {
		for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
			if (Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("lock-smoke-tests"))) {
				return dir;
			}
		}
		throw new IllegalStateException("No README.md next to lock-smoke-tests above " + Path.of("").toAbsolutePath());
	}

	/**
	 * Returns a file of the project.
	 * @param relative its path from the root, such as {@code docs/monitoring/distributed-lock-alerts.yml}
	 * @return the absolute path, which exists
	 * @throws IllegalStateException if the root is not found, or the file does not exist
	 */
	public static Path file(String relative) {
		Path file = root().resolve(relative);
		if (!Files.exists(file)) {
			throw new IllegalStateException("The project has no " + relative + " (" + file + ")");
		}
		return file;
	}

}
