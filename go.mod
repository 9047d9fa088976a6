module github.com/pakton/pakton

go 1.26.8
