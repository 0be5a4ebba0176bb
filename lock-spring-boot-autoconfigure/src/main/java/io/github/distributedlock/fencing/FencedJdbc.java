package io.github.distributedlock.fencing;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import javax.sql.DataSource;

import io.github.distributedlock.core.LockContext;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Fenced writes to a relational table: runs your conditional statement, which compares the row's last accepted
 * token with the writer's ({@code :token}) and stores it, and throws {@link StaleFencingTokenException} when no
 * row accepted it.
 * <pre class="code">
 * &#64;DistributedLock(name = "stock", key = "#sku")
 * public void restock(String sku, int qty) {
 *     fencedJdbc.update("UPDATE stock SET qty = :qty, fence = :token WHERE sku = :sku AND fence &lt; :token",
 *             Map.of("sku", sku, "qty", qty));
 * }
 * </pre>
 * The table keeps the token in a column of its own ({@code fence BIGINT NOT NULL DEFAULT 0}); the check and the
 * write are one statement, so the database decides atomically, whatever the isolation level. With
 * {@code fence < :token} a holder writes a row once per acquisition; use {@code fence <= :token} to let it
 * write the same row again under the same lock (a retry, a second step). Thread-safe.
 */
public class FencedJdbc {

	private final JdbcClient jdbc;

	/**
	 * Creates a writer on a data source.
	 * @param dataSource the database
	 */
	public FencedJdbc(DataSource dataSource) {
		this(JdbcClient.create(Objects.requireNonNull(dataSource, "dataSource must not be null")));
	}

	/**
	 * Creates a writer on a {@link JdbcClient}.
	 * @param jdbc the client; its statements take part in the caller's Spring transaction, if any
	 */
	public FencedJdbc(JdbcClient jdbc) {
		this.jdbc = Objects.requireNonNull(jdbc, "jdbc must not be null");
	}

	/**
	 * Runs a fenced statement with the token of the innermost lock this thread holds
	 * ({@code LockContext.current().fencingToken()}).
	 * @param sql the conditional statement, with named parameters, {@code :token} among them
	 * @param params the other named parameters
	 * @return how many rows changed, at least 1
	 * @throws StaleFencingTokenException if no row changed: the token was refused (or no row matched)
	 * @throws IllegalStateException if this thread runs no locked callback or {@code @DistributedLock} method
	 * @throws IllegalArgumentException if the statement has no {@code :token} parameter, or {@code params} has one
	 */
	public int update(String sql, Map<String, ?> params) {
		return update(sql, params, LockContext.current().fencingToken());
	}

	/**
	 * Runs a fenced statement with an explicit token, such as a {@code LockHandle}'s.
	 * @param sql the conditional statement, with named parameters, {@code :token} among them
	 * @param params the other named parameters
	 * @param token the writer's fencing token, bound to {@code :token}
	 * @return how many rows changed, at least 1
	 * @throws StaleFencingTokenException if no row changed: the token was refused (or no row matched)
	 * @throws IllegalArgumentException if the statement has no {@code :token} parameter, or {@code params} has one
	 */
	public int update(String sql, Map<String, ?> params, long token) {
		Objects.requireNonNull(sql, "sql must not be null");
		Objects.requireNonNull(params, "params must not be null");
		if (!sql.contains(":token")) {
			throw new IllegalArgumentException("A fenced statement must compare and store the fencing token as "
					+ ":token (such as '... SET fence = :token WHERE id = :id AND fence < :token'), was: " + sql);
		}
		if (params.containsKey("token")) {
			throw new IllegalArgumentException("The parameter 'token' is the fencing token, bound by FencedJdbc; "
					+ "do not pass it in params");
		}
		Map<String, Object> bound = new LinkedHashMap<>(params);
		bound.put("token", token);
		int changed = this.jdbc.sql(sql).params(bound).update();
		if (changed == 0) {
			throw new StaleFencingTokenException(token, "the statement '" + sql + "' (no row changed)");
		}
		return changed;
	}

}
