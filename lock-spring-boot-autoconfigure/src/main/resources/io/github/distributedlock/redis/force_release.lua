-- Force-releases a lock whoever holds it (the Actuator endpoint's DELETE, when it is enabled): deletes its hash
-- and publishes its key on the release channel, so that every client's waiters of that lock try again at once.
-- The former holder learns the loss from its watchdog, or at the latest at its release (which finds no hold and
-- throws LockLostException; it changes nothing). Fencing tokens stay monotonic: fence.lua takes them from the
-- server clock when the '~f' field is gone.
-- KEYS[1]: the lock's key
-- ARGV[1]: the release channel (classic, or sharded in the slot of KEYS[1]: see notify.lua)
-- Returns 1 when the lock was released; 0 when there was no key; -1 when the key is not a hash (not a lock of
--         this library: left untouched).
local kind = redis.call('TYPE', KEYS[1]).ok
if kind == 'none' then
    return 0
end
if kind ~= 'hash' then
    return -1
end
redis.call('DEL', KEYS[1])
notify(ARGV[1], '', KEYS[1])
return 1
