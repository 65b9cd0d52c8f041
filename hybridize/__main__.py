from hybridize.cli import main

main()
