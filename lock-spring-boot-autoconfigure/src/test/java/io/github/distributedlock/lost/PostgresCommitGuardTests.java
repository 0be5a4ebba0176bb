package io.github.distributedlock.lost;

import io.github.distributedlock.test.PostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The commit guard's tests on a real PostgreSQL server (started from the Debian package's binaries; skipped where
 * the package is missing), with Spring Boot's JDBC transaction manager.
 */
class PostgresCommitGuardTests extends CommitGuardTests {

	private static PostgresServer postgres;

	@BeforeAll
	static void startPostgres() {
		postgres = PostgresServer.start();
	}

	@AfterAll
	static void stopPostgres() {
		if (postgres != null) {
			postgres.close();
		}
	}

	@Override
	String databaseUrl() {
		return postgres.jdbcUrl() + "?user=postgres";
	}

}
