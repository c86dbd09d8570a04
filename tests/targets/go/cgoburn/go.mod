module cgoburn

go 1.19
