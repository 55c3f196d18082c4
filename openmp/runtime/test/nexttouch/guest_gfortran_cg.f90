! A program built by gfortran -fopenmp, on this libomp through its omp_lib
! module (libomp's, ahead of gfortran's): a conjugate-gradient solver for
! the 2-D Poisson problem (5-point stencil, matrix-free) whose vectors are
! initialised before any next-touch, in a NUMA guest (tools/numa-vm, 2
! nodes, 2 CPUs, one thread per node with OMP_PROC_BIND=spread).  Every page
! of the five vectors is then moved to the last node; "call kmp_nexttouch(v)" on each (the
! array form), and every page inside a thread's part (schedule(static))
! moves to that thread's node.  The solution is checked against the known
! one (the right-hand side is A times it).  The vectors are heap memory
! that transparent huge pages may back (the guest's kernel has THP
! "always"): khugepaged can make a huge page of the end of one vector, the
! next ones and the worker's stack before the request; the runtime splits it
! when it arms the pages (guest_thp_split.c).
!
! On the host: the program runs on this libomp without LD_LIBRARY_PATH and
! without libgomp.
!
! REQUIRES: gfortran, numa-vm, linux
! RUN: %gfortran-compile -lnuma
! RUN: env -u LD_LIBRARY_PATH ldd %t | FileCheck %s --check-prefix=LDD \
! RUN:   -DLIBDIR=%omp-library-dir --implicit-check-not=libgomp
! RUN: %numa-vm --nodes 2 --cpus 2 --numa-balancing 0 -- \
! RUN:   env OMP_NUM_THREADS=2 OMP_PROC_BIND=spread %t | FileCheck %s
!
! LDD: libomp.so => [[LIBDIR]]/libomp.so
!
! CHECK: guest_gfortran_cg: 2 nodes
! CHECK: guest_gfortran_cg: every page on its thread's node
! CHECK: guest_gfortran_cg: converged, error below 1e-8
! CHECK: guest_gfortran_cg: PASS
module cg_numa
  use, intrinsic :: iso_c_binding
  implicit none
  interface
    function numa_max_node() bind(c)
      import :: c_int
      integer(c_int) :: numa_max_node
    end function numa_max_node
    function numa_node_of_cpu(cpu) bind(c)
      import :: c_int
      integer(c_int), value :: cpu
      integer(c_int) :: numa_node_of_cpu
    end function numa_node_of_cpu
    function sched_getcpu() bind(c)
      import :: c_int
      integer(c_int) :: sched_getcpu
    end function sched_getcpu
    function getpagesize() bind(c)
      import :: c_int
      integer(c_int) :: getpagesize
    end function getpagesize
    ! libnuma's move_pages: nodes = c_null_ptr queries, else moves.
    function move_pages(pid, count, pages, nodes, status, flags) bind(c)
      import :: c_int, c_long, c_ptr
      integer(c_int), value :: pid, flags
      integer(c_long), value :: count
      type(c_ptr), intent(in) :: pages(*)
      type(c_ptr), value :: nodes
      integer(c_int), intent(out) :: status(*)
      integer(c_long) :: move_pages
    end function move_pages
  end interface
  integer(c_intptr_t) :: pgsz
contains
  integer(c_intptr_t) function addr(p)
    type(c_ptr), intent(in) :: p
    addr = transfer(p, addr)
  end function addr

  ! The node of each page of v (nodes = c_null_ptr) or move them all to
  ! node target; first is the address of v's first page.
  subroutine pages_of(v, first, where, target)
    real(8), target, intent(in) :: v(:)
    integer(c_intptr_t), intent(out) :: first
    integer(c_int), allocatable, intent(out) :: where(:)
    integer, intent(in), optional :: target
    type(c_ptr), allocatable :: pages(:)
    integer(c_int), allocatable, target :: to(:)
    integer(c_long) :: n, rc
    integer :: i
    first = addr(c_loc(v(1))) / pgsz * pgsz
    n = (addr(c_loc(v(size(v)))) + 7) / pgsz - first / pgsz + 1
    allocate(pages(n), where(n), to(n))
    do i = 1, int(n)
      pages(i) = transfer(first + (i - 1) * pgsz, pages(i))
    end do
    if (present(target)) then
      to = target
      rc = move_pages(0, n, pages, c_loc(to), where, 2) ! MPOL_MF_MOVE
    else
      rc = move_pages(0, n, pages, c_null_ptr, where, 0)
    end if
    if (rc /= 0) where = -1
  end subroutine pages_of
end module cg_numa

program guest_gfortran_cg
  use omp_lib
  use cg_numa
  implicit none
  integer, parameter :: m = 128, n = m * m
  real(8), allocatable, target :: x(:), b(:), r(:), p(:), q(:), xs(:)
  integer, allocatable :: owner(:)
  integer(c_int), allocatable :: where(:)
  integer(c_intptr_t) :: first, lo, hi
  integer :: i, j, k, it, nodes, t, wrong, checked, failures, st
  real(8) :: rr, rr_new, pq, alpha, beta, err, scale

  failures = 0
  pgsz = getpagesize()
  nodes = numa_max_node() + 1
  print '(a, i0, a)', 'guest_gfortran_cg: ', nodes, ' nodes'
  if (nodes < 2) error stop 'FAIL: needs 2 nodes'

  ! The known solution xs, b = A xs, x = 0; every page to the last node.
  allocate(x(n), b(n), r(n), p(n), q(n), xs(n), owner(n))
  do j = 1, m
    do i = 1, m
      xs(i + (j - 1) * m) = sin(0.05d0 * i) * cos(0.03d0 * j) + 1d-3 * i
    end do
  end do
  call stencil(xs, b)
  x = 0
  r = 0
  p = 0
  q = 0
  call to_node(x)
  call to_node(b)
  call to_node(r)
  call to_node(p)
  call to_node(q)
  call kmp_nexttouch(x, st)
  call check(st == 0, 'kmp_nexttouch(x)')
  call kmp_nexttouch(b)
  call kmp_nexttouch(r)
  call kmp_nexttouch(p)
  call kmp_nexttouch(q, stat=st)
  call check(st == 0, 'kmp_nexttouch(q)')

  ! CG; the first loop touches every vector where its owner will use it.
  rr = 0
!$omp parallel do schedule(static) reduction(+:rr)
  do k = 1, n
    owner(k) = numa_node_of_cpu(sched_getcpu())
    x(k) = 0
    q(k) = 0
    r(k) = b(k)
    p(k) = b(k)
    rr = rr + b(k) * b(k)
  end do
!$omp end parallel do
  ! Placement, right after the loop that touched every page: a page holding
  ! only elements of one thread's part is on that thread's node.  (Checked
  ! here, not after the solve: khugepaged may later collapse a block that
  ! holds pages of both threads into a huge page on the node that has most
  ! of them, moving pages that next-touch had placed.)
  wrong = 0
  checked = 0
  call placed(x)
  call placed(b)
  call placed(r)
  call placed(p)
  call placed(q)
  call check(wrong == 0 .and. checked >= 5 * (n * 8 / pgsz - 2), &
             'pages on their thread''s node')
  if (wrong == 0) print '(a)', 'guest_gfortran_cg: every page on its thread''s node'
  scale = rr
  do it = 1, 2000
    call stencil(p, q)
    pq = 0
!$omp parallel do schedule(static) reduction(+:pq)
    do k = 1, n
      pq = pq + p(k) * q(k)
    end do
!$omp end parallel do
    alpha = rr / pq
    rr_new = 0
!$omp parallel do schedule(static) reduction(+:rr_new)
    do k = 1, n
      x(k) = x(k) + alpha * p(k)
      r(k) = r(k) - alpha * q(k)
      rr_new = rr_new + r(k) * r(k)
    end do
!$omp end parallel do
    if (rr_new < 1d-28 * scale) exit
    beta = rr_new / rr
    rr = rr_new
!$omp parallel do schedule(static)
    do k = 1, n
      p(k) = r(k) + beta * p(k)
    end do
!$omp end parallel do
  end do
  err = maxval(abs(x - xs)) / maxval(abs(xs))
  call check(err < 1d-8, 'error below 1e-8')
  if (err < 1d-8) &
    print '(a)', 'guest_gfortran_cg: converged, error below 1e-8'

  if (failures == 0) then
    print '(a)', 'guest_gfortran_cg: PASS'
  else
    stop 1
  end if

contains
  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(*), intent(in) :: what
    if (.not. cond) then
      print '(a, a)', 'FAIL: ', what
      failures = failures + 1
    end if
  end subroutine check

  ! The vectors' pages may be in a transparent huge page (khugepaged makes
  ! them of heap memory): move_pages moves it whole for its first page and
  ! reports -EBUSY for a later one it has moved with it.  So ask where the
  ! pages are, and move those that are not there again.
  subroutine to_node(v)
    real(8), target, intent(inout) :: v(:)
    integer :: try
    do try = 1, 3
      call pages_of(v, first, where, nodes - 1)
      call pages_of(v, first, where)
      if (all(where == nodes - 1)) exit
    end do
    call check(all(where == nodes - 1), 'initial move_pages')
  end subroutine to_node

  ! y = A v, A the 5-point Laplacian with zero boundary values.
  subroutine stencil(v, y)
    real(8), intent(in) :: v(:)
    real(8), intent(out) :: y(:)
    integer :: i, j, k
!$omp parallel do schedule(static) private(i, j)
    do k = 1, n
      i = mod(k - 1, m) + 1
      j = (k - 1) / m + 1
      y(k) = 4 * v(k)
      if (i > 1) y(k) = y(k) - v(k - 1)
      if (i < m) y(k) = y(k) - v(k + 1)
      if (j > 1) y(k) = y(k) - v(k - m)
      if (j < m) y(k) = y(k) - v(k + m)
    end do
!$omp end parallel do
  end subroutine stencil

  subroutine placed(v)
    real(8), target, intent(in) :: v(:)
    integer :: pg, kl, kh
    call pages_of(v, first, where)
    do pg = 1, size(where)
      lo = first + (pg - 1) * pgsz
      hi = lo + pgsz - 1
      ! The elements on this page (all of it inside v).
      kl = int((lo - addr(c_loc(v(1)))) / 8) + 1
      kh = int((hi + 1 - addr(c_loc(v(1)))) / 8)
      if (kl < 1 .or. kh > n) cycle
      if (owner(kl) /= owner(kh)) cycle
      checked = checked + 1
      if (where(pg) /= owner(kl)) then
        wrong = wrong + 1
        if (wrong <= 5) print '(a, i0, a, i0, a, i0)', 'FAIL: page ', pg, &
          ' on node ', where(pg), ', its thread on ', owner(kl)
      end if
    end do
  end subroutine placed
end program guest_gfortran_cg
