"""Never fill a disk (issue 40): what each route of a plan brings to each shard
(`zonectl.capacity.loads`), each volume projected against its limit
(`zonectl.capacity.project`), and the lines the views print (`zonectl.capacity.text`). Pure."""
