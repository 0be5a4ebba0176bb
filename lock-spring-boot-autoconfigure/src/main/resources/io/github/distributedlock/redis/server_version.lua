-- Tells the server's version, for the choice of the notification mode (see NotificationChannels): Redis 7.0 and later
-- (and Valkey, which reports the Redis version it is compatible with) know sharded pub/sub.
-- KEYS[1]: a key under the key prefix, read by nothing: it only routes the script to a node of a Redis Cluster
-- Returns redis.REDIS_VERSION_NUM (0x00MMmmpp, such as 0x07000f for 7.0.15), or 0 before Redis 7.0, which lacks it.
return redis.REDIS_VERSION_NUM or 0
