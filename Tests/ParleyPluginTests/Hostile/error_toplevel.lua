-- expect: runtime
error("refusing to load")
