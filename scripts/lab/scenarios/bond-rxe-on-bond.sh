# rxe on an active-backup bond (slave vA); the bond has the host's address; listener in init.
base_bond
addr init bond0 192.0.2.1/24
listen init 0.0.0.0 7471
record
connect 192.0.2.1 7471
