-- Reads a lock for diagnostics (the Actuator endpoint), whoever holds it; changes nothing. One script, so the
-- TTL, the clock and the fields are one consistent snapshot.
-- KEYS[1]: the lock's key
-- Returns {ttl, now, field, value, field, value, ...}: ttl the key's PTTL in milliseconds (-2: no key; -1: a key
--         without TTL), now the Redis TIME in milliseconds (what the deadlines in the fields are compared with),
--         then, when the key is a hash (a lock of this library), its fields and values (HGETALL); nothing more
--         for a key of another type.
local t = redis.call('TIME')
local result = { redis.call('PTTL', KEYS[1]), tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) }
if redis.call('TYPE', KEYS[1]).ok == 'hash' then
    local all = redis.call('HGETALL', KEYS[1])
    for i = 1, #all do
        result[#result + 1] = all[i]
    end
end
return result
