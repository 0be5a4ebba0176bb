-- Redlock renewal on one node: extends the lease of an attempt that still holds the key here.
-- KEYS[1]: the lock's hash on this node (see vote.lua)
-- ARGV[1]: the attempt id
-- ARGV[2]: the lease in milliseconds, the key's new TTL
-- Returns 1 when extended; 0 when the attempt no longer holds the key here: nothing changes (a renewal never
--         takes a node back, so a late or repeated renewal is harmless).
if redis.call('hget', KEYS[1], 'owner') ~= ARGV[1] then
    return 0
end
redis.call('pexpire', KEYS[1], ARGV[2])
return 1
