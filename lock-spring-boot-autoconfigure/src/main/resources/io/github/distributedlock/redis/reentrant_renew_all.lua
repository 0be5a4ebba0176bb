-- Extends the leases of several reentrant locks at once while their owners hold them: the watchdog's batch,
-- one script instead of one per lock (in Redis Cluster, the keys of one call share a slot).
-- KEYS[i]: the hash of lock i; one field per owner id, its value the owner's hold count (and "~w")
-- ARGV[i]: owner id (acquisition attempt) of lock i, "<client id>:<thread id>/<attempt>"
-- ARGV[#KEYS + i]: lease of lock i, in milliseconds
-- Returns an array with, for each lock in KEYS order, 1 when extended (never shortened), 0 when its owner no
-- longer holds it (it was lost). The same steps as reentrant_renew.lua, for each lock.
local n = #KEYS
local renewed = {}
for i = 1, n do
    local key, owner, lease = KEYS[i], ARGV[i], tonumber(ARGV[n + i])
    if redis.call('hexists', key, owner) == 0 then
        renewed[i] = 0
    else
        if redis.call('pttl', key) < lease then
            redis.call('pexpire', key, lease)
        end
        renewed[i] = 1
    end
end
return renewed
