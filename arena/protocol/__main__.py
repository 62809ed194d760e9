from arena.protocol.client import main

main()
