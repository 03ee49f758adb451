
shop
envprod
teamweb"
	a.examplePedge"
	b.example»*P»