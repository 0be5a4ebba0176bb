-- Replica sync: a write of the new holder's own on its lock, so that a WAIT right after it on the same
-- connection waits for the replicas to have the lock. Replication is one ordered stream: a replica that has
-- this write also has the acquisition before it, whichever connection made that (the holder's own acquire, or
-- the release that granted or handed the lock to it). WAIT cannot run in a script; see ReplicaSync.
-- KEYS[1]: the lock's hash
-- ARGV[1]: the lock type: "reentrant" (the owner's field holds its count), "read" (field 'r:<owner>'),
--          "write" (field 'w' is the owner, 'wc' its count) or "semaphore" (field 'h:<owner>', its deadline and
--          count); see reentrant_common.lua, rw_common.lua and sem_common.lua
-- ARGV[2]: owner id of the acquisition attempt, "<client id>:<thread id>/<attempt>"
-- Returns 1 when the owner holds the lock: its hold count was written again, unchanged (HINCRBY by 0 still
-- counts as a write, so it is replicated); 0 when it does not (the lock was lost meanwhile): nothing is written.
if ARGV[1] == 'semaphore' then
    local value = redis.call('hget', KEYS[1], 'h:' .. ARGV[2])
    if not value then
        return 0
    end
    -- the same value written again: a write all the same, so it is replicated
    redis.call('hset', KEYS[1], 'h:' .. ARGV[2], value)
    return 1
end
local field
if ARGV[1] == 'read' then
    field = 'r:' .. ARGV[2]
elseif ARGV[1] == 'write' then
    if redis.call('hget', KEYS[1], 'w') ~= ARGV[2] then
        return 0
    end
    field = 'wc'
else
    field = ARGV[2]
end
if redis.call('hexists', KEYS[1], field) == 0 then
    return 0
end
redis.call('hincrby', KEYS[1], field, 0)
return 1
