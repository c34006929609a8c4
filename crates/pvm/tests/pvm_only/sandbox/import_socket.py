import socket
