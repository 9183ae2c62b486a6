// The embedded servers: see StreamChat/.
