-- Writes a stock level only for a writer whose fencing token is greater than the last accepted one: the
-- resource side of fencing, which refuses a holder whose lock ran out while it was paused.
-- KEYS[1]: the stock's hash, fields "units" and "fence" (the token of the last accepted write)
-- ARGV[1]: the writer's fencing token
-- ARGV[2]: the new units
-- ARGV[3]: how long the sample's data lives, in milliseconds (the demo leaves nothing behind for ever)
-- Returns 1 when written; 0 when refused (the token is not greater than the last accepted one).
local fence = tonumber(redis.call('HGET', KEYS[1], 'fence') or '0')
if tonumber(ARGV[1]) <= fence then
    return 0
end
redis.call('HSET', KEYS[1], 'fence', ARGV[1], 'units', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
